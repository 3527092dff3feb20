"""Starting the GUI: application object, settings, theme, and which project to open."""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication, QInputDialog, QMessageBox

from desktop_app.settings import load_settings, save_settings
from desktop_app.ui import startup_probe
from desktop_app.ui.first_paint import after_first_paint
from desktop_app.ui.theme import apply_theme

if TYPE_CHECKING:
    from desktop_app.ui.main_window import MainWindow


def application() -> QApplication:
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setApplicationName("ScreenLab")
        app.setOrganizationName("ScreenLab")
        app.setApplicationDisplayName("ScreenLab")
    return app


def startup_project(requested: str | None) -> str:
    """The project named on the command line, else the last one opened, else the demo."""
    from desktop_app.api.projects import (  # after the splash: the API is a big import
        is_project_folder,
        is_url,
    )
    from desktop_app.demo import ensure_demo_project

    if requested:
        return requested
    last = load_settings().last_project
    if last and (is_url(last) or is_project_folder(Path(last))):
        return last
    return str(ensure_demo_project())


def ask_annotator(window: MainWindow) -> None:
    settings = window.settings
    if settings.annotator or os.environ.get("SCREENLAB_USER"):
        return
    opened = window.opened
    if opened is not None and opened.project.on_server:  # there, who you are is your login
        return
    name, ok = QInputDialog.getText(window, "Who is annotating?",
                                    "Your name is written next to every edit you make (audit trail):")
    if ok and name.strip():
        settings.annotator = name.strip()
        save_settings(settings)
        if opened is not None:  # the queue, the State column and the status bar follow the name
            opened.worker_renamed(settings.annotator)


def build_window(project: str | None = None, media: str | None = None) -> MainWindow:
    from desktop_app.ui.main_window import MainWindow  # the window's modules: most of the launch's imports

    app = application()
    settings = load_settings()
    apply_theme(app, settings.theme)
    window = MainWindow(settings)
    window.ocr.hold()  # the first screen's OCR starts once that screen is painted (first_painted)
    window.open_project(startup_project(project), media)
    return window


# if the canvas has not painted a screen by then (a project with no screens, a hidden window), what waited for
# it starts anyway
FIRST_PAINT_AT_MOST_MS = 5000


def first_painted(window: MainWindow) -> None:
    """The first screen is on the screen: the launch's deferred work now. Its OCR's settle wait starts, and the
    cycle collector, paused through the launch's imports (run_gui), collects once, then freezes what survived:
    the window's many long-lived objects (Qt wrappers, modules) are put out of its reach. A full collection
    triggered on a worker thread (an import of thousands of screenshots) walked them all, holding the GIL for
    80-270 ms at a time while the window waited (found by benchmarks/open_folder.py)."""
    window.ocr.release()
    gc.collect()
    gc.freeze()
    gc.enable()


def smoke_check(window: MainWindow) -> int:
    """Start-up self test for installers and CI: the window shows a screen with its boxes, and the OCR
    process reads that screen with the models that ship with the app (fresh, not from the cache)."""
    from desktop_app.ocr.cache import ocr_screen
    from desktop_app.ocr.process import shared_ocr_process
    from desktop_app.paths import user_log_dir
    from desktop_app.ui.canvas.items import ImageItem

    app = application()
    window.resize(1400, 900)
    for _ in range(10):
        app.processEvents()
    drawn = isinstance(window.scene.background, ImageItem) and bool(window.scene.items_by_id)
    words, ocr_note = 0, "no screen"
    opened = window.opened
    if opened is not None:
        try:
            # in the OCR process, as the window reads screens: an installer that cannot start it fails here
            outcome = ocr_screen(opened.project, opened.ws.screen, refresh=True, analyse=shared_ocr_process().analyse)
            words, ocr_note = len(outcome.words), f"{outcome.engine} read {len(outcome.words)} words"
        except Exception as exc:  # report it as a failed check, not a traceback
            ocr_note = f"OCR failed: {exc}"
    ok = drawn and words > 0
    out = Path(os.environ.get("SCREENLAB_SMOKE_SCREENSHOT", user_log_dir() / "smoke.png"))
    window.grab().save(str(out))
    print(f"smoke: {'ok' if ok else 'FAILED'}: project {opened.project.name if opened else '-'}, "
          f"{len(window.scene.items_by_id)} boxes drawn, {ocr_note}, screenshot {out}")
    window.close()
    return 0 if ok else 1


def show_welcome_once(window: MainWindow) -> None:
    """First start: what to press to draw, label and accept; once (Help > Welcome… shows it again)."""
    from desktop_app.ui.welcome import WelcomeDialog, mark_shown, should_show_welcome

    if should_show_welcome(window.settings):
        mark_shown(window.settings)  # before it shows: a start killed while it is open does not bring it back either
        save_settings(window.settings)
        WelcomeDialog(window.settings.shortcuts, window).exec()


def report_previous_hard_crash(window: MainWindow) -> None:
    """The last session died hard: a crash, or a window whose display never opened (crash.previous_session_notice)."""
    from desktop_app import crash

    notice = crash.previous_session_notice()
    if notice is not None:
        QMessageBox.warning(window, notice.title, notice.text)


def _qt_said_while_starting(kind, context, message: str) -> None:
    """Qt's messages while the display opens: printed as Qt prints them, and noted in the hard-crash log, so
    that a display that cannot open (Qt then aborts) is told apart from a crash at the next start."""
    from desktop_app import crash

    category = context.category if context is not None and context.category not in (None, "", "default") else ""
    print(f"{category}: {message}" if category else message, file=sys.stderr, flush=True)
    if kind != QtMsgType.QtDebugMsg and (kind == QtMsgType.QtFatalMsg or category.startswith("qt.qpa")):
        crash.note(message.strip().splitlines()[0] if message.strip() else "")


def open_display() -> QApplication:
    """The application object, its display opened; how far that got is noted for the next start (crash.py)."""
    from desktop_app import crash

    crash.note(crash.STARTING)
    qInstallMessageHandler(_qt_said_while_starting)
    try:
        app = application()
    finally:
        qInstallMessageHandler(None)  # Qt's own handler again
    crash.note(crash.STARTED)
    return app


def run_gui(project: str | None = None, media: str | None = None, smoke: bool = False) -> int:
    from desktop_app import crash
    from desktop_app.ui.crash_dialog import show_crash_dialog

    try:
        crash.install()  # no silent exits: a log in the user log folder and a dialog pointing to it
    except OSError as exc:  # an unwritable log folder must not stop the app
        print(f"ScreenLab: crash logging is off ({exc})", file=sys.stderr)
    crash.register_window_dialog(show_crash_dialog)
    # the collector paused until the first screen is painted (first_painted): the launch's imports and window
    # make hundreds of thousands of objects and few cycles, and it walked them some 250 times, 0.1 s of CPU
    gc.disable()
    app = open_display()
    from desktop_app.ui.splash import (  # before the window's heavy imports: seen at once
        say_opening,
        starting_splash,
    )

    splash = starting_splash()
    location = startup_project(project)
    say_opening(splash, location)
    window = build_window(location, media)
    window.show()
    splash.finish(window)
    if smoke:
        gc.enable()
        return smoke_check(window)
    after_first_paint(window, lambda: first_painted(window), at_most_ms=FIRST_PAINT_AT_MOST_MS)
    if startup_probe.wanted():  # benchmarks/cold_start.py: the moment the first screen is painted, then quit
        startup_probe.install(window, app)
        return app.exec()
    report_previous_hard_crash(window)
    show_welcome_once(window)
    ask_annotator(window)
    return app.exec()
