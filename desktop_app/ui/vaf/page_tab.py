"""Page & target: the page a study restyles (a demo page, or a saved HTML file or folder), its target item,
the words of the browsing prompt and the study's name.

The page is rendered in the GUI's browser (render_service) as the original variant and shown whole; a click
on it asks the browser which card is under the point (vaf.render.pick_target) and fills the target's
selector, its name and the items' selector; Enter in a field, or Show, renders again with what the fields
say (the target outlined gold, the other items dashed), which is also how a typed selector is checked.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop_app import api
from desktop_app.ui.vaf.calls import error_text, in_browser
from desktop_app.ui.vaf.page_view import ITEM, TARGET, PageView
from desktop_app.vaf.pages import PageSpec
from desktop_app.vaf.render import pick_target, render_variant
from desktop_app.vaf.settings import ORIGINAL_SETTING

PROVISIONAL = "body"  # what a page without a target yet is rendered with (the whole body is "the target")
# the browsing prompt's words: (PageSpec field, label, what it is)
WORDS = (("category", "Category", "what the agent is asked to find, e.g. laptop"),
         ("page_type", "Page type", "e.g. online shop's search results"),
         ("item_singular", "Item (one)", "e.g. laptop"),
         ("item_plural", "Items (many)", "e.g. laptops"),
         ("fields", "Fields", "what the agent lists per item, e.g. name, price, rating"),
         ("clickable", "Clickable part", "what to click, e.g. laptop's title"))


class PageTargetTab(QWidget):
    changed = Signal()  # the page, its target or the study's name changed
    message = Signal(str)

    def __init__(self, render_service, parent=None):
        super().__init__(parent)
        self.render = render_service
        self.source = ""
        self.shot = None  # the last VariantShot shown
        self._generation = 0
        self._demos = {f"demo:{p.name}": p for p in _demo_pages()}

        self.page_combo = QComboBox()
        self.page_combo.setMinimumContentsLength(28)
        for source, spec in self._demos.items():
            self.page_combo.addItem(f"{spec.name} — {spec.title}" if spec.title else spec.name, source)
        self.page_combo.currentIndexChanged.connect(lambda _i: self._source_chosen())
        open_file, open_folder = QPushButton("Open file…"), QPushButton("Open folder…")
        open_file.setToolTip("A saved web page (.html); its folder serves the page's pictures and styles")
        open_folder.setToolTip("A folder holding one saved page (index.html, or its only .html file)")
        open_file.clicked.connect(self._open_file)
        open_folder.clicked.connect(self._open_folder)
        source_row = QHBoxLayout()
        source_row.addWidget(QLabel("Page:"))
        source_row.addWidget(self.page_combo, 1)
        source_row.addWidget(open_file)
        source_row.addWidget(open_folder)

        self.view = PageView("width")
        self.view.clicked.connect(self.pick_at)
        hint = QLabel("Click an item of the page to make it the target. The target is outlined gold, the other "
                      "items dashed blue. Ctrl + wheel zooms.")
        hint.setWordWrap(True)
        hint.setStyleSheet("color: gray")

        self.target = QLineEdit(placeholderText="CSS selector, e.g. #target (click the page)")
        self.target_name = QLineEdit(placeholderText="what the judge looks for in the agent's thoughts")
        self.items = QLineEdit(placeholderText="CSS selector of every item (default: the target's siblings)")
        self.target_name.setToolTip("The target's name, prefilled with the card's text: shorten it to the item's title")
        target_box = QGroupBox("Target")
        form = QFormLayout(target_box)
        form.addRow("Selector", self.target)
        form.addRow("Name", self.target_name)
        form.addRow("Items", self.items)
        self.show_button = QPushButton("Show on the page")
        self.show_button.setToolTip("Render the page with these selectors (Enter in a field does the same)")
        self.show_button.clicked.connect(self.show_page)
        form.addRow("", self.show_button)
        self.found = QLabel()
        self.found.setTextFormat(Qt.PlainText)  # errors and the page's text
        self.found.setWordWrap(True)
        form.addRow("", self.found)

        self.words: dict[str, QLineEdit] = {}
        words_box = QGroupBox("Words of the browsing prompt")
        words_form = QFormLayout(words_box)
        for key, label, tip in WORDS:
            edit = QLineEdit(placeholderText=str(getattr(_DEFAULT, key)))
            edit.setToolTip(tip)
            edit.textEdited.connect(lambda _t: self.changed.emit())
            self.words[key] = edit
            words_form.addRow(label, edit)
        self.study = QLineEdit(placeholderText="the study's name (its variants' scenario)")
        self.study.textEdited.connect(lambda _t: self.changed.emit())
        study_box = QGroupBox("Study")
        study_form = QFormLayout(study_box)
        study_form.addRow("Name", self.study)
        for edit in (self.target, self.items):
            edit.returnPressed.connect(self.show_page)
            edit.textEdited.connect(lambda _t: self.changed.emit())
        self.target_name.textEdited.connect(lambda _t: self.changed.emit())

        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(target_box)
        side_layout.addWidget(words_box)
        side_layout.addWidget(study_box)
        side_layout.addStretch(1)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(hint)
        left_layout.addWidget(self.view, 1)
        split = QSplitter(Qt.Horizontal)
        split.addWidget(left)
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([700, 440])
        # what went wrong, whole and in words a person can select: a message over the page is a short note
        self.problem = QLabel()
        self.problem.setTextFormat(Qt.PlainText)
        self.problem.setWordWrap(True)
        self.problem.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.problem.setFrameShape(QFrame.StyledPanel)
        self.problem.setContentsMargins(8, 6, 8, 6)
        self.problem.hide()
        layout = QVBoxLayout(self)
        layout.addLayout(source_row)
        layout.addWidget(self.problem)
        layout.addWidget(split, 1)
        if self.page_combo.count():
            self._source_chosen()
        else:
            self.view.clear("No demo pages found: open a saved page (Open file… or Open folder…)")

    # the page ----------------------------------------------------------------------------------
    def _open_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a saved web page", "", "Web pages (*.html *.htm);;All files (*)")
        if path:
            self.open_source(path)

    def _open_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Open a folder holding a saved web page")
        if path:
            self.open_source(path)

    def open_source(self, source: str) -> bool:
        """A saved page (file or folder) as the study's page; a source that is no page is said, not shown."""
        try:
            api.vaf_page(source, PROVISIONAL)
        except (ValueError, OSError) as exc:
            QMessageBox.warning(self, "Cannot open this page", f"{source}\n\n{error_text(exc)}")
            return False
        index = self.page_combo.findData(source)
        if index < 0:
            self.page_combo.addItem(f"{Path(source).name}  (file)", source)
            index = self.page_combo.count() - 1
        if index == self.page_combo.currentIndex():
            self._source_chosen()
        else:
            self.page_combo.setCurrentIndex(index)
        return True

    def _source_chosen(self) -> None:
        source = self.page_combo.currentData()
        if not source:
            return
        self.source = source
        demo = self._demos.get(source)
        self.target.setText(demo.target if demo else "")
        self.target_name.setText(demo.target_name if demo else "")
        self.items.setText(demo.items if demo else "")
        for key, edit in self.words.items():
            edit.setText(getattr(demo, key) if demo else "")
        self.study.setText(demo.name if demo else _stem(source))
        self._show_starts()
        self.changed.emit()
        self.show_page()

    def show_page(self) -> None:
        """Render the page as the fields say (a page without a target yet: the whole page, nothing outlined)."""
        if not self.source:
            return
        target = self.target.text().strip() or PROVISIONAL
        try:
            spec = api.vaf_page(self.source, target, self.study.text().strip(), items=self.items.text().strip())
        except (ValueError, OSError) as exc:
            self._failed(exc)
            return
        self._generation += 1
        generation = self._generation
        self.view.set_message("Rendering the page…")
        self.found.setText("")
        self.problem.hide()
        in_browser(self.render, self, lambda r: render_variant(r, spec, ORIGINAL_SETTING),
                   lambda shot: self._shown(generation, shot, target != PROVISIONAL),
                   lambda exc: generation == self._generation and self._failed(exc))

    def _shown(self, generation: int, shot, has_target: bool) -> None:
        if generation != self._generation:
            return  # another page or target was asked for meanwhile
        self.shot = shot
        self.view.set_png(shot.full_jpeg, "The page could not be shown")
        self.draw_marks(has_target)
        if has_target:
            others = sum(1 for i in shot.items if not i.target)
            self.found.setText(f"Target found ({shot.target and round(shot.target[2] - shot.target[0])} × "
                               f"{shot.target and round(shot.target[3] - shot.target[1])} px), {others} other items."
                               if shot.target else "The target is on the page but not visible.")
            if shot.target:
                self.view.centre_on_box(shot.target)
        else:
            self.found.setText("No target yet: click an item of the page.")
        warnings = "; ".join(shot.warnings)
        self.message.emit(f"Page rendered: 1280 × {shot.height} px" + (f" ({warnings})" if warnings else "")
                          + (f", {len(shot.blocked)} outside requests blocked" if shot.blocked else ""))

    def draw_marks(self, has_target: bool = True) -> None:
        self.view.clear_marks()
        if self.shot is None or not has_target:
            return
        for item in self.shot.items:
            if not item.target:
                self.view.add_box(item.box, ITEM, 1.5, dashed=True, tip=item.text[:120])
        self.view.add_box(self.shot.target, TARGET, 3, tip="the target")

    def _failed(self, exc: BaseException) -> None:
        text = error_text(exc)
        self.view.set_message("Cannot show the page: the message above says why")
        self.problem.setText(f"Cannot show the page. {text}")
        self.problem.show()
        self.found.setText("")
        self.message.emit(f"Cannot show the page: {text}")

    # picking the target ------------------------------------------------------------------------
    def pick_at(self, x: float, y: float) -> None:
        """The card under a point of the page becomes the target (asked of the browser)."""
        if not self.source:
            return
        source = self.source
        self.message.emit(f"Finding the item at ({x:.0f}, {y:.0f})…")
        in_browser(self.render, self, lambda r: pick_target(r, source, x, y),
                   lambda found: self._picked(source, found), self._failed)

    def _picked(self, source: str, found: dict | None) -> None:
        if source != self.source:
            return
        if not found or not found.get("selector"):
            self.message.emit("Nothing to pick there: click on an item of the page")
            return
        self.target.setText(found["selector"])
        self.target_name.setText(" ".join(str(found.get("text") or "").split())[:300])
        self.items.setText(found.get("items") or "")
        self._show_starts()
        self.changed.emit()
        self.message.emit(f"Target: {found['selector']}")
        self.show_page()

    def _show_starts(self) -> None:
        """Long texts (a card's whole text as its name) are read from their start."""
        for edit in (self.target, self.target_name, self.items, self.study, *self.words.values()):
            edit.setCursorPosition(0)

    # what the study uses -----------------------------------------------------------------------
    def spec(self) -> PageSpec:
        """The study's page as the fields say; ValueError (PageError) says what is missing."""
        if not self.source:
            raise ValueError("choose a page first (Page & target)")
        words = {key: edit.text().strip() for key, edit in self.words.items()}
        return api.vaf_page(self.source, self.target.text().strip(), self.study.text().strip(),
                            target_name=self.target_name.text().strip(), items=self.items.text().strip(), **words)

    def describe(self) -> str:
        """One line naming the page and target, for the other tabs."""
        page = self.page_combo.currentText() or "(no page)"
        target = self.target.text().strip() or "(no target: pick one)"
        return f"Page: {page} · target {target} · study {self.study.text().strip() or '(unnamed)'}"


_DEFAULT = PageSpec(name="", source="", target="")


def _demo_pages() -> list[PageSpec]:
    try:
        return api.vaf_demo_pages()
    except (OSError, ValueError, KeyError):  # a broken install: the window still opens files
        return []


def _stem(source: str) -> str:
    path = Path(source)
    return path.name if path.is_dir() else (path.parent.name if path.name == "index.html" else path.stem)
