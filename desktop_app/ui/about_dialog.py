"""Help > About ScreenLab: the version, where this user's projects, settings, caches and logs are (each with a button
that opens the folder), what is sent (nothing), and "Remove my data…" (desktop_app/uninstall.py: the window closes
first, then the data goes, so nothing the window holds open or writes at closing is left)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
)

from desktop_app import __version__
from desktop_app.paths import user_dir_locations
from desktop_app.uninstall import plan_removal

FOLDERS = (("projects", "Projects (the demo, opened folders)"), ("settings", "Settings"),
           ("cache", "Caches (browser driver, cached pictures)"), ("logs", "Logs and crash reports"))
PRIVACY = ("ScreenLab sends nothing about you or your work: no telemetry (ONNX Runtime's is switched off), "
           "no update checks. It only connects to the model servers and the team database you set up.")


class AboutDialog(QDialog):
    remove_requested = Signal(bool)  # with projects: the window closes, then removes the data

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("About ScreenLab")
        title = QLabel(f"<h3>ScreenLab {__version__}</h3>Label screens, synthesize distracting screens and evaluate "
                       "GUI agents.")
        title.setWordWrap(True)
        grid = QGridLayout()
        self.paths: dict[str, QLabel] = {}
        self.open_buttons: dict[str, QPushButton] = {}
        for row, (kind, name) in enumerate(FOLDERS):
            path = user_dir_locations()[kind]
            shown = QLabel(str(path))
            shown.setTextInteractionFlags(Qt.TextSelectableByMouse)  # to copy into a file manager or a mail
            shown.setWordWrap(True)
            button = QPushButton("Open")
            button.setToolTip(f"Open {path} in the file manager")
            button.clicked.connect(lambda _c=False, kind=kind: self.open_folder(kind))
            grid.addWidget(QLabel(f"<b>{name}</b>"), row, 0)
            grid.addWidget(shown, row, 1)
            grid.addWidget(button, row, 2)
            self.paths[kind], self.open_buttons[kind] = shown, button
        grid.setColumnStretch(1, 1)
        privacy = QLabel(PRIVACY)
        privacy.setWordWrap(True)
        self.remove_button = QPushButton("Remove my data…")
        self.remove_button.setToolTip("Delete your settings, caches and logs (and, if you tick it, the projects "
                                      "above); ScreenLab closes first")
        self.remove_button.clicked.connect(self.ask_remove)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.addButton(self.remove_button, QDialogButtonBox.ResetRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addLayout(grid)
        layout.addWidget(privacy)
        layout.addWidget(buttons)
        self.resize(640, self.sizeHint().height())
        self.confirm: QMessageBox | None = None  # the question of "Remove my data…", while shown

    def open_folder(self, kind: str) -> None:
        path = user_dir_locations()[kind]
        path.mkdir(parents=True, exist_ok=True)  # not there yet (nothing written so far): an empty folder opens
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))

    def ask_remove(self) -> None:
        """The list of what goes, a box for the projects, then a question whose default is No."""
        plan = plan_removal(projects=False)
        with_projects = plan_removal(projects=True)
        box = QMessageBox(QMessageBox.Warning, "Remove my data", "", QMessageBox.Yes | QMessageBox.No, self)
        box.setDefaultButton(QMessageBox.No)
        box.button(QMessageBox.Yes).setText("Close ScreenLab and remove")
        box.setText("ScreenLab will close, then delete:\n\n" + "\n".join(plan.lines())
                    + "\n\nThe program itself stays: remove it with your package manager or the uninstaller.")
        projects = QCheckBox(f"Also delete the {len(with_projects.projects)} project(s) in "
                             f"{user_dir_locations()['projects']} ({with_projects.bytes / 1048576:.1f} MB in all), "
                             "with their screenshots and labels")
        projects.setEnabled(bool(with_projects.projects))
        box.setCheckBox(projects)
        self.confirm = box
        answer = box.exec()
        self.confirm = None
        if answer == QMessageBox.Yes:
            self.remove_requested.emit(projects.isChecked())
            self.accept()
