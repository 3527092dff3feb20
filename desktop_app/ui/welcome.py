"""The welcome dialog of the first start: the things to know, on one page.

    from desktop_app.ui.welcome import WelcomeDialog, should_show_welcome

    if should_show_welcome(settings):
        mark_shown(settings)               # once: the next start opens the project straight away
        save_settings(settings)
        WelcomeDialog(settings.shortcuts, window).exec()

The keys shown are the ones in force (the user's rebindings from Settings > Keyboard included).
It shows at the first start only (issue 38: a "Don't show again" box left unticked brought it back at every
start); that it was shown is kept in `settings.extra["welcome_shown"]` (`extra` survives a save). Help >
"Welcome..." opens it again at any time.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout

from desktop_app.settings import Settings
from desktop_app.ui.shortcuts import BY_ID, default_key, key_name, keys_for

SHOWN_KEY = "welcome_shown"
DISMISSED_KEY = "welcome_dismissed"  # the earlier "Don't show again" box, ticked: counts as shown


def should_show_welcome(settings: Settings) -> bool:
    return not (settings.extra.get(SHOWN_KEY) or settings.extra.get(DISMISSED_KEY))


def mark_shown(settings: Settings) -> None:
    """Record that the first start's welcome was shown (the caller saves the settings)."""
    settings.extra[SHOWN_KEY] = True


def _keys(action_id: str, overrides: dict[str, str]) -> str:
    """The keys bound to an action (ui/shortcuts.py, with the user's own); its default when the user unbound it."""
    bound = keys_for(action_id, overrides)
    return " or ".join(f"<b>{escape(k)}</b>" for k in bound) if bound else \
        f"<b>{escape(default_key(action_id))}</b> (unbound)"


def welcome_rows(overrides: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """(what, how) pairs shown in the dialog, with the keys currently bound."""
    o = overrides or {}
    labels = " / ".join(_keys(a, o) for a in ("label.gold", "label.distracted", "label.other"))
    return [
        ("Look at your screenshots", "File &gt; Open Screenshots Folder… "
                                     f"({_keys('file.open_folder', o)}): the first one shows at "
                                     "once, the rest come in behind it"),
        ("Draw a box", f"press {_keys('edit.draw', o)}, then drag on the screen; "
                       f"{_keys('edit.select_mode', o)} stops drawing"),
        ("Label it", f"{labels}: <b>gold</b> (serves the goal) / <b>distracted</b> (follows the "
                     "distraction) / <b>other</b>"),
        ("Accept OCR suggestions", f"click a dashed suggestion ({key_name('canvas.add')} for more), then press "
                                   f"{_keys('ocr.accept', o)} (or double-click one); "
                                   f"{_keys('ocr.toggle', o)} shows or hides them"),
        ("Move between screens", f"{_keys('nav.prev', o)} previous, {_keys('nav.next', o)} next"),
        ("Finish a screen", f"{_keys('work.done', o)} (or the <b>{escape(BY_ID['work.done'].text)}"
                            "</b> button under the properties) marks it done and opens the next one not done yet; "
                            f"{_keys('work.skip', o)} skips it with a reason"),
        ("Verify generated samples", f"{_keys('review.mode', o)} opens the verification "
                                     f"queue: {_keys('review.accept', o)} accept, "
                                     f"{_keys('review.reject', o)} reject (with a reason)"),
    ]


class WelcomeDialog(QDialog):
    def __init__(self, overrides: dict[str, str] | None = None, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Welcome to ScreenLab")
        intro = QLabel(
            "<h3>Welcome to ScreenLab</h3>"
            "<p>You label the places on a screen an agent could click: <b>gold</b> when it serves the "
            "user's goal, <b>distracted</b> when it follows a distraction on the screen, <b>other</b> "
            "otherwise. The demo project is a good place to try things out.</p>")
        intro.setWordWrap(True)
        rows = "".join(f"<tr><td style='padding:4px 12px 4px 0'><b>{what}</b></td><td style='padding:4px 0'>{how}"
                       "</td></tr>" for what, how in welcome_rows(overrides))
        self.keys = QLabel(f"<table>{rows}</table>")
        self.keys.setWordWrap(True)
        self.keys.setTextFormat(Qt.RichText)
        outro = QLabel("<p>There is no Save button: every edit is written to the project immediately, and "
                       f"{key_name('edit.undo', overrides)} undoes it. All keys are listed under Help &gt; Keyboard "
                       f"shortcuts ({key_name('help.shortcuts', overrides)}) and can be changed in Edit &gt; "
                       "Settings.</p><p>This page shows at the first start; Help &gt; Welcome… opens it "
                       "again.</p>")
        outro.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok)
        buttons.button(QDialogButtonBox.Ok).setText("Start labelling")
        buttons.accepted.connect(self.accept)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.keys)
        layout.addWidget(outro)
        layout.addWidget(buttons)
        self.resize(560, self.sizeHint().height())

