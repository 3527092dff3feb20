"""The dialog shown after an unexpected error: what happened, where the log is, what to do.

`desktop_app.crash` calls `show_crash_dialog(log_path, summary)` from whatever thread crashed.
The dialog is always opened later, from the GUI thread's event loop (never inside the failing
paint handler or worker), is not modal to the whole app, and only one is open at a time: errors
that repeat while it is open only raise its count (each still gets its log file, up to a limit).

Every edit is already written to the project when it is made, so the dialog offers to keep
working or to quit; nothing needs saving.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QStyle,
    QVBoxLayout,
)

_notifier: _Notifier | None = None
_open_dialog: CrashDialog | None = None


class CrashDialog(QDialog):
    def __init__(self, log_path: Path, summary: str, parent=None):
        super().__init__(parent)
        self.log_path = Path(log_path)
        self.repeats = 0
        self.setWindowTitle("ScreenLab: unexpected error")
        self.setAttribute(Qt.WA_DeleteOnClose)
        icon = QLabel()
        icon.setPixmap(self.style().standardIcon(QStyle.SP_MessageBoxCritical).pixmap(48, 48))
        self.headline = QLabel("<b>ScreenLab hit an unexpected error.</b>")
        self.summary = QLabel(summary)
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.path_field = QLineEdit(str(self.log_path))
        self.path_field.setReadOnly(True)
        advice = QLabel(
            "Your edits are saved: every change is written to the project when you make it. "
            "You can keep working; if something looks wrong, quit and start ScreenLab again. "
            "Please attach the log file to a bug report (it holds no keys or passwords).")
        advice.setWordWrap(True)
        self.open_folder = QPushButton("Open log folder")
        self.copy_path = QPushButton("Copy path")
        self.quit_button = QPushButton("Quit ScreenLab")
        self.keep = QPushButton("Keep working")
        self.keep.setDefault(True)
        self.open_folder.clicked.connect(self._open_folder)
        self.copy_path.clicked.connect(self._copy_path)
        self.quit_button.clicked.connect(self._quit)
        self.keep.clicked.connect(self.accept)

        text = QVBoxLayout()
        text.addWidget(self.headline)
        text.addWidget(self.summary)
        text.addWidget(QLabel("Details were written to:"))
        text.addWidget(self.path_field)
        text.addWidget(advice)
        top = QHBoxLayout()
        top.addWidget(icon, 0, Qt.AlignTop)
        top.addLayout(text, 1)
        buttons = QHBoxLayout()
        for button in (self.open_folder, self.copy_path):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.quit_button)
        buttons.addWidget(self.keep)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(buttons)
        self.resize(560, self.sizeHint().height())

    def note_repeat(self) -> None:
        self.repeats += 1
        self.headline.setText(f"<b>ScreenLab hit an unexpected error</b> (and {self.repeats} more since; "
                              "each has its own log file in the same folder).")

    def _open_folder(self) -> None:
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.log_path.parent)))

    def _copy_path(self) -> None:
        QGuiApplication.clipboard().setText(str(self.log_path))

    def _quit(self) -> None:
        self.accept()
        QApplication.closeAllWindows()  # the main window's closeEvent still runs (settings, OCR shutdown)
        QApplication.quit()


class _Notifier(QObject):
    crashed = Signal(str, str)

    def __init__(self):
        super().__init__()
        # queued even from the GUI thread: the dialog opens after the failing handler returned
        self.crashed.connect(self._show, Qt.QueuedConnection)

    @Slot(str, str)
    def _show(self, path: str, summary: str) -> None:
        global _open_dialog
        if _open_dialog is not None:
            _open_dialog.note_repeat()
            return
        parent = QApplication.activeWindow()
        dialog = CrashDialog(Path(path), summary, parent)
        dialog.destroyed.connect(_forget)
        _open_dialog = dialog
        dialog.show()
        dialog.raise_()


def _forget(*_args) -> None:
    global _open_dialog
    _open_dialog = None


def show_crash_dialog(log_path: Path, summary: str) -> None:
    """Thread-safe; does nothing without a QApplication."""
    global _notifier
    app = QApplication.instance()
    if app is None:
        return
    if _notifier is None:
        notifier = _Notifier()
        notifier.moveToThread(app.thread())  # created on a worker thread: push it to the GUI thread
        _notifier = notifier
    _notifier.crashed.emit(str(log_path), summary)


def current_dialog() -> CrashDialog | None:
    """The open crash dialog, if any (tests, and the app to close it on quit)."""
    return _open_dialog
