"""The first thing a launch shows: "ScreenLab, starting / opening <project>", before the window's modules are imported.

On an idle machine the window follows within a second; on a busy laptop (the reviewer's launches took
11-18 s at load 7-21) the window's imports and the project's first page take seconds, and a click with
nothing on the screen for that long looks like a click that did nothing (issue 33: progress for every wait
over 0.5 s). Drawn with QPainter, not a picture file: nothing to ship or find, and sharp at any scaling.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QEventLoop, QRect, Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QSplashScreen

from desktop_app.ui import startup_probe

WIDTH, HEIGHT = 440, 150
MESSAGE_ALIGN = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom


def _picture() -> QPixmap:
    screen = QGuiApplication.primaryScreen()
    ratio = screen.devicePixelRatio() if screen is not None else 1.0
    pixmap = QPixmap(int(WIDTH * ratio), int(HEIGHT * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(QColor("#1f2937"))
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    title = QFont()
    title.setPointSize(20)
    title.setBold(True)
    painter.setFont(title)
    painter.setPen(QColor("#f9fafb"))
    painter.drawText(QRect(24, 22, WIDTH - 48, 40), Qt.AlignmentFlag.AlignLeft, "ScreenLab")
    body = QFont()
    body.setPointSize(10)
    painter.setFont(body)
    painter.setPen(QColor("#9ca3af"))
    painter.drawText(QRect(24, 64, WIDTH - 48, 24), Qt.AlignmentFlag.AlignLeft,
                     "Labelling and evaluation of GUI agents")
    painter.end()
    return pixmap


def _paint_now() -> None:
    app = QApplication.instance()
    if app is not None:  # paint it before the imports that follow hold the thread
        app.processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)


def starting_splash() -> QSplashScreen:
    """Shown and painted now, saying "Starting…"; `finish(window)` takes it away once the window is up."""
    splash = QSplashScreen(_picture())
    splash.setObjectName("startingSplash")
    splash.showMessage("Starting…", MESSAGE_ALIGN, QColor("#d1d5db"))
    splash.show()
    _paint_now()
    if startup_probe.wanted():  # benchmarks/cold_start.py: launch to the first thing seen
        print(f"startup-probe: feedback {time.time():.6f}", flush=True)
    return splash


def say_opening(splash: QSplashScreen, project: str) -> None:
    """Which project the launch is opening (a URL may hold a password: a server's project is not named)."""
    name = "a project on its server" if "://" in project else Path(project).name
    text = splash.fontMetrics().elidedText(f"Opening {name}…", Qt.TextElideMode.ElideMiddle, WIDTH - 48)
    splash.showMessage(text, MESSAGE_ALIGN, QColor("#d1d5db"))
    _paint_now()
