"""Render the main window on the demo project, light and dark, into docs/, at a laptop's 1366x768 (the dark one
at 1920x1080).

    .venv/bin/python docs/make_screenshots.py
    xvfb-run -s "-screen 0 1920x1080x24" .venv/bin/python docs/make_screenshots.py   # on a real X server

Offscreen unless a display is set; uses a scratch copy of the demo so nothing of yours is touched.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

if not os.environ.get("DISPLAY"):  # under xvfb-run (or on a desktop) the real X11 platform draws
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
LAPTOP, DESKTOP = (1366, 768), (1920, 1080)
DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))

from PySide6.QtWidgets import QApplication  # noqa: E402

from desktop_app.formats.transfer import import_path  # noqa: E402
from desktop_app.paths import demo_dataset_dir  # noqa: E402
from desktop_app.settings import Settings  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402
from desktop_app.ui.app import application  # noqa: E402
from desktop_app.ui.main_window import MainWindow  # noqa: E402
from desktop_app.ui.theme import apply_theme  # noqa: E402


def shoot(theme: str, project: Path, episode: str, out: Path, select_text: str, size=LAPTOP) -> None:
    app = application()
    apply_theme(app, theme)
    os.environ["SCREENLAB_CONFIG_DIR"] = tempfile.mkdtemp()  # never save into the user's settings
    window = MainWindow(Settings(annotator="Ada", theme=theme, show_suggestions=theme == "light"))
    window.resize(*size)
    window.show()
    window.open_project(project)
    window.browser.search.setText(episode)
    window.browser.apply_filter()
    window.browser.search.clear()
    window.browser.apply_filter()
    for _ in range(10):
        QApplication.processEvents()
    window.ocr.wait_idle()  # let the light shot show its OCR suggestions
    for _ in range(10):
        QApplication.processEvents()
    chosen = [b.id for b in window.ws.boxes.values() if b.element_text == select_text]
    window.scene.select_ids(chosen)
    window.view.fit()
    for _ in range(10):
        QApplication.processEvents()
    window.grab().save(str(out))
    window.close()
    print(f"wrote {out}")


def shoot_review(project: Path, out: Path) -> None:
    """The verification queue on a pending pop-up sample."""
    app = application()
    apply_theme(app, "light")
    window = MainWindow(Settings(annotator="Ada", show_suggestions=False))
    window.resize(*LAPTOP)
    window.show()
    window.open_project(project)
    window.set_review_mode(True)
    for _ in range(10):
        QApplication.processEvents()
    window.view.fit()
    for _ in range(5):
        QApplication.processEvents()
    window.grab().save(str(out))
    window.close()
    print(f"wrote {out}")


def shoot_team(project: Path, out: Path) -> None:
    """Ada's queue on a team project: the State column, the queue and state filters, the Team menu's keys."""
    from desktop_app import api

    with Project.open(project) as p:
        api.assign(p, ["Ada", "Ben"], overlap=0.2, lead="lead")
        mine = api.queue(p, "Ada")
        api.set_state(p, mine[0].id, "done", annotator="Ada")
        api.set_state(p, mine[1].id, "skipped", "screen is blank or broken", annotator="Ada")
    app = application()
    apply_theme(app, "light")
    window = MainWindow(Settings(annotator="Ada", show_suggestions=False))
    window.resize(*LAPTOP)
    window.show()
    window.open_project(project)
    window.browser.queue.setCurrentIndex(window.browser.queue.findData("Ada"))
    for _ in range(10):
        QApplication.processEvents()
    window.browser.select_row(2)
    window.view.fit()
    for _ in range(10):
        QApplication.processEvents()
    window.grab().save(str(out))
    window.close()
    print(f"wrote {out}")


def shoot_grid(project: Path, out: Path) -> None:
    """The samples as thumbnails beside the canvas (the Thumbnails tab), the current one highlighted."""
    app = application()
    apply_theme(app, "light")
    window = MainWindow(Settings(annotator="Ada", show_suggestions=False))
    window.resize(*LAPTOP)
    window.show()
    window.open_project(project)
    window.left.setMinimumWidth(480)
    window.left_tabs.setCurrentWidget(window.grid)
    window.browser.select_row(9)
    for _ in range(40):  # the thumbnails decode off the UI thread
        QApplication.processEvents()
        time.sleep(0.05)
    window.grab().save(str(out))
    window.close()
    print(f"wrote {out}")


def shoot_list_columns(project: Path, out: Path) -> None:
    """The list's header menu of columns (Assignee ticked), at 1366x768, with Done, next unlabelled under the
    properties: what labelme / CVAT users look for (issue 33, item 8)."""
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QContextMenuEvent, QPainter

    from desktop_app.store.queries import EpisodeFilter
    from desktop_app.teams import assignment

    app = application()
    apply_theme(app, "light")
    with Project.open(project) as opened:
        assignment.assign(opened, EpisodeFilter(scenarios=("popup",)), ["Ada"], lead="Lin")
    window = MainWindow(Settings(annotator="Ada", show_suggestions=False, list_columns=["Id", "Goal", "State",
                                                                                        "Assignee"]))
    window.resize(*LAPTOP)
    window.show()
    window.open_project(project)
    for _ in range(10):
        QApplication.processEvents()
    header = window.browser.table.horizontalHeader()
    pos = QPoint(header.sectionViewportPosition(3) + 20, header.height() // 2)
    QApplication.sendEvent(header.viewport(), QContextMenuEvent(QContextMenuEvent.Mouse, pos,
                                                                header.viewport().mapToGlobal(pos)))
    for _ in range(10):
        QApplication.processEvents()
    picture = window.grab()
    menu = window.browser.column_menu  # a window of its own: drawn onto the picture where it opened
    painter = QPainter(picture)
    painter.drawPixmap(menu.pos() - window.mapToGlobal(QPoint(0, 0)), menu.grab())
    painter.end()
    picture.save(str(out))
    menu.close()
    window.close()
    print(f"wrote {out}")


def main() -> None:
    scratch = Path(tempfile.mkdtemp()) / "demo"
    with Project.init(scratch) as project:
        import_path(project, demo_dataset_dir(), "screenlab")
    shoot("light", scratch, "demo-popup-04", DOCS / "main-window-light.png", "Only necessary cookies")
    shoot("dark", scratch, "demo-search-01", DOCS / "main-window-dark.png", "Download now",
          DESKTOP)
    shoot_review(scratch, DOCS / "verification-queue.png")
    shoot_team(scratch, DOCS / "team-queue.png")
    shoot_grid(scratch, DOCS / "thumbnail-grid.png")
    shoot_list_columns(scratch, DOCS / "list-columns.png")


if __name__ == "__main__":
    main()
