"""Render the accessibility-tree panel into docs/.

    .venv/bin/python docs/make_a11y_screenshots.py

On a scratch project holding the shop screen of tests/test_gui_a11y.py (a uiautomator dump with a button whose
text sits on a child label, and a settings icon the dump calls not clickable), it saves:

  docs/a11y-panel.png   the window with the "Tree" tab (accessibility tree) showing: the gold box drawn on the
                        button's text label is selected, so the tree has selected the label's node; the mouse
                        rests on the Button row, so its bounds are outlined on the canvas (dashed magenta, with
                        its name) - what "Promote to clickable ancestor" (Ctrl+Shift+U) would give the box; the
                        settings icon carries an annotator's "clickable is true" correction (the flag marker)

Offscreen, 1600 x 940 asked (the window may be wider: its minimum width); nothing of yours is touched
(settings and data go to temporary folders).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["SCREENLAB_CONFIG_DIR"] = tempfile.mkdtemp()  # never save into the user's settings
DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))
sys.path.insert(0, str(DOCS.parent / "tests"))

from PySide6.QtCore import QEvent, QPointF, Qt  # noqa: E402
from PySide6.QtGui import QMouseEvent  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from desktop_app.settings import Settings  # noqa: E402
from desktop_app.ui.app import application  # noqa: E402
from desktop_app.ui.main_window import MainWindow  # noqa: E402
from desktop_app.ui.theme import apply_theme  # noqa: E402

from test_gui_a11y import BUTTON, LABEL_BOX, SETTINGS, make_tree_project  # noqa: E402


def settle(n: int = 10) -> None:
    for _ in range(n):
        QApplication.processEvents()


def main() -> None:
    app = application()
    apply_theme(app, "light")
    project = make_tree_project(Path(tempfile.mkdtemp()))
    window = MainWindow(Settings(annotator="Ada", theme="light", show_suggestions=False))
    window.resize(1600, 940)
    window.show()
    window.open_project(project)
    settle()
    panel = window.a11y
    assert window.right_tabs.currentWidget() is panel, "the tree tab comes forward for a screen with a tree"
    panel.select_node(SETTINGS)
    panel.flag_current()  # the icon the dump calls not clickable
    label_box = next(b.id for b in window.ws.boxes.values() if (b.x1, b.y1, b.x2, b.y2) == LABEL_BOX)
    window.ws.delete_boxes([i for i in window.ws.boxes if i != label_box])  # the label's box alone
    window.scene.select_ids([label_box])
    window.view.fit()
    settle()
    viewport = panel.tree_view.viewport()
    row = panel.tree_view.visualRect(panel.model.index_of(BUTTON)).center()
    QApplication.sendEvent(viewport, QMouseEvent(QEvent.MouseMove, QPointF(row), QPointF(viewport.mapToGlobal(row)),
                                                 Qt.NoButton, Qt.NoButton, Qt.NoModifier))
    settle()
    assert panel.outline().isVisible()
    out = DOCS / "a11y-panel.png"
    window.grab().save(str(out))
    print(f"wrote {out}")
    window.close()


if __name__ == "__main__":
    main()
