"""What tests/test_gui_window_fits.py measures of a window, and a run of it on a screen of a given size and scale.

    python tests/window_fit_probe.py PROJECT_FOLDER SCREEN_WIDTH SCREEN_HEIGHT   (QT_SCALE_FACTOR from the caller)

Qt reads the screen and the scale factor when it starts, so a screen of 2560x1440 at 200 % is a process of its own:
it opens the main window on that (offscreen) screen, takes it through the trajectory pages and the dashboard, and
prints one JSON line: the window's first size, its smallest, the sizes it took, any widget left outside it.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QWidget

SIZES = ((1280, 720), (1366, 768))


def inside_a_scroll_area(widget: QWidget, top: QWidget) -> bool:
    """The widget is content of a scroll area (a row of a list, a panel that scrolls): it may lie beyond the
    window's edge without being cut off, the scroll bars reach it."""
    parent = widget.parentWidget()
    while parent is not None and parent is not top:
        if isinstance(parent.parentWidget(), QAbstractScrollArea) and parent is parent.parentWidget().viewport():
            return True
        parent = parent.parentWidget()
    return False


def cut_off(window, parts: list[QWidget] | None = None) -> list[str]:
    """The visible widgets of `parts` (default: the main window's status bar and docks) that do not lie wholly
    inside the window: what a user would see cut at its edge."""
    if parts is None:
        parts = [window.statusBar(), window.left, window.right]
        if window.dashboard_dock.isVisible():
            parts.append(window.dashboard_dock)
    room = window.rect()
    out = []
    for part in parts:
        if not part.isVisible():
            continue
        for widget in [part, *part.findChildren(QWidget)]:
            if not widget.isVisible() or widget.isWindow() or inside_a_scroll_area(widget, window):
                continue
            where = QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size())
            if not room.contains(where):
                text = widget.text() if hasattr(widget, "text") and callable(widget.text) else ""
                out.append(f"{type(widget).__name__} {widget.objectName()!r} {text!r:.40} at "
                           f"{where.x()},{where.y()} {where.width()}x{where.height()}")
    return out


def smallest(window) -> tuple[int, int]:
    hint = window.minimumSizeHint().expandedTo(window.minimumSize())
    return hint.width(), hint.height()


def settle(rounds: int = 10) -> None:
    for _ in range(rounds):
        QApplication.processEvents()


def main() -> None:
    folder, width, height = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    config = Path(tempfile.mkdtemp()) / "screen.json"
    config.write_text(json.dumps({"screens": [{"name": "probe", "x": 0, "y": 0, "width": width, "height": height,
                                               "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={config}"
    from long_names import LONG_ANNOTATOR

    from desktop_app.settings import Settings
    from desktop_app.ui.app import application
    from desktop_app.ui.main_window import MainWindow
    from desktop_app.ui.tasks import wait_all
    from desktop_app.ui.theme import apply_theme

    app = application()
    apply_theme(app, "light")
    screen = app.primaryScreen().availableGeometry()
    window = MainWindow(Settings(annotator=LONG_ANNOTATOR, show_suggestions=False))
    first = (window.width(), window.height())
    window.show()
    window.open_project(folder)
    settle()
    seen = {"open": smallest(window)}
    for page in ("label", "agreement", "annotate"):
        window.judge.show(page)
        settle()
        wait_all()
        seen[page] = smallest(window)
    window.dashboard_action.setChecked(True)
    window.left_tabs.setCurrentWidget(window.runs)
    settle()
    wait_all()
    settle()
    seen["dashboard"] = smallest(window)
    took, outside = {}, {}
    for size in ((screen.width(), screen.height()), *SIZES):
        if size[0] > screen.width() or size[1] > screen.height():
            continue
        window.resize(*size)
        settle()
        took[f"{size[0]}x{size[1]}"] = [window.width(), window.height()]
        outside[f"{size[0]}x{size[1]}"] = cut_off(window)
    picture = window.grab()
    print(json.dumps({"screen": [screen.width(), screen.height()], "ratio": app.devicePixelRatio(),
                      "first": list(first), "smallest": seen, "took": took, "outside": outside,
                      "pixels": [picture.width(), picture.height()]}))
    window.close_project()


if __name__ == "__main__":
    main()
