"""The first thing a launch shows: "ScreenLab, starting / opening <project>", before the window's modules are
imported.

On an idle machine the window follows within a second; on a busy laptop (the reviewer's launches took
11-18 s at load 7-21) the window's imports and the project's first page take seconds, and a click with
nothing on the screen for that long looks like a click that did nothing (issue 33: progress for every wait
over 0.5 s). Drawn with QPainter, not a picture file: nothing to ship or find, and sharp at any scaling.

A frameless widget of our own rather than QSplashScreen: QSplashScreen.show() waits up to a second for the
window system to report it exposed (measured: 1.0 s on Xvfb and offscreen, where a plain widget takes 7 ms),
a second added to every launch.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QEventLoop, QRect, Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPainter
from PySide6.QtWidgets import QApplication, QWidget

from desktop_app.ui import startup_probe

WIDTH, HEIGHT = 440, 150


class Splash(QWidget):
    def __init__(self):
        super().__init__(None, Qt.WindowType.SplashScreen | Qt.WindowType.FramelessWindowHint)
        self.setObjectName("startingSplash")
        self.setFixedSize(WIDTH, HEIGHT)
        self.message = "Starting…"
        screen = QGuiApplication.primaryScreen()
        if screen is not None:  # centred on the screen the window will open on
            self.move(screen.availableGeometry().center() - self.rect().center())

    def say(self, message: str) -> None:
        self.message = message
        self.repaint()
        _paint_now()

    def finish(self, window: QWidget) -> None:
        """Gone once the window is up."""
        del window
        self.close()
        self.deleteLater()

    def paintEvent(self, _event) -> None:  # noqa: N802 (Qt's name)
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor("#1f2937"))
        title = QFont(self.font())
        title.setPointSize(20)
        title.setBold(True)
        painter.setFont(title)
        painter.setPen(QColor("#f9fafb"))
        painter.drawText(QRect(24, 22, WIDTH - 48, 40), Qt.AlignmentFlag.AlignLeft, "ScreenLab")
        body = QFont(self.font())
        body.setPointSize(10)
        painter.setFont(body)
        painter.setPen(QColor("#9ca3af"))
        painter.drawText(QRect(24, 64, WIDTH - 48, 24), Qt.AlignmentFlag.AlignLeft,
                         "Labelling and evaluation of GUI agents")
        painter.setPen(QColor("#d1d5db"))
        text = painter.fontMetrics().elidedText(self.message, Qt.TextElideMode.ElideMiddle, WIDTH - 48)
        painter.drawText(QRect(24, HEIGHT - 40, WIDTH - 48, 24), Qt.AlignmentFlag.AlignLeft, text)
        painter.end()


def _paint_now() -> None:
    app = QApplication.instance()
    if app is not None:  # paint it before the imports that follow hold the thread
        app.processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)


def starting_splash() -> Splash:
    """Shown and painted now, saying "Starting…"; `finish(window)` takes it away once the window is up."""
    splash = Splash()
    splash.show()
    _paint_now()
    if startup_probe.wanted():  # benchmarks/cold_start.py: launch to the first thing seen
        print(f"startup-probe: feedback {time.time():.6f}", flush=True)
    return splash


def say_opening(splash: Splash, project: str) -> None:
    """Which project the launch is opening (a URL may hold a password: a server's project is not named)."""
    name = "a project on its server" if "://" in project else Path(project).name
    splash.say(f"Opening {name}…")
