"""File > Open project on a server: a PostgreSQL URL, its password for this session (optionally kept in
the OS keyring, never in the settings or the project), and the shared media folder. It also creates a new
project on the server, with its images in the shared folder or in the database."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
)

from desktop_app.api.projects import SERVER_URL_EXAMPLE as EXAMPLE
from desktop_app.api.projects import server_url, store_password
from desktop_app.settings import Settings

SHARED_FOLDER = "the team's shared folder (empty if the images are in the database)"


class ServerDialog(QDialog):
    chosen = Signal(str, str)  # the URL to open (with the password typed, for this session only), media
    createRequested = Signal(str, str, bool)  # URL, media folder (or cache), images kept in the database

    def __init__(self, settings: Settings, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Open a project on a server")
        self.url = QLineEdit(placeholderText=EXAMPLE)
        servers = [p for p in settings.recent_projects if "://" in p]
        if servers:
            self.url.setText(servers[0])
        self.password = QLineEdit(echoMode=QLineEdit.Password,
                                  placeholderText="leave empty to use the keyring or SCREENLAB_DB_PASSWORD")
        self.remember = QCheckBox("Keep the password in the OS keyring")
        self.media = QLineEdit(placeholderText=SHARED_FOLDER)
        self.media.setToolTip("Where the team's screenshots are. Leave it empty for a project that keeps its "
                              "images in the database (this machine then caches them itself).")
        self.media.setText(settings.server_media.get(self.url.text().strip(), ""))
        self.url.textChanged.connect(lambda text: self.media.setText(settings.server_media.get(text.strip(),
                                                                                                 self.media.text())))
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        media_row = QHBoxLayout()
        media_row.addWidget(self.media, 1)
        media_row.addWidget(browse)
        self.error = QLabel()
        self.error.setStyleSheet("color: #d9534f")
        self.error.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Server URL", self.url)
        form.addRow("Password", self.password)
        form.addRow("", self.remember)
        form.addRow("Media folder", media_row)
        self.create = QCheckBox("Create a new project on this server")
        self.in_database = QCheckBox("Keep its images in the database (for a team with no shared folder)")
        self.in_database.setEnabled(False)
        form.addRow("", self.create)
        form.addRow("", self.in_database)
        buttons = QDialogButtonBox(QDialogButtonBox.Open | QDialogButtonBox.Cancel)
        self.open_button = buttons.button(QDialogButtonBox.Open)
        self.create.toggled.connect(self._create_toggled)
        self.in_database.toggled.connect(self._in_database_toggled)
        buttons.accepted.connect(self._open)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(QLabel("Your name in the team is the annotator name in Settings."))
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.resize(560, self.sizeHint().height())

    def _create_toggled(self, on: bool) -> None:
        self.in_database.setEnabled(on)
        self.open_button.setText("Create" if on else "Open")
        self._in_database_toggled()

    def _in_database_toggled(self) -> None:
        no_folder = self.in_database.isEnabled() and self.in_database.isChecked()
        self.media.setEnabled(not no_folder)
        self.media.setPlaceholderText("not needed: the images go in the database" if no_folder else SHARED_FOLDER)

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "The team's media folder")
        if folder:
            self.media.setText(folder)

    def _open(self) -> None:
        text, media = self.url.text().strip(), self.media.text().strip()
        password = self.password.text()
        try:
            url = server_url(text, password)  # with the password typed: for this session only
        except ValueError as exc:
            self.error.setText(str(exc))
            return
        create, in_database = self.create.isChecked(), self.in_database.isChecked()
        if create and in_database:
            media = ""  # no folder: this machine caches the images in its own data folder
        if create and not in_database and not media:
            self.error.setText("Choose the media folder the team shares (where the screenshots go), or keep the "
                               "images in the database.")
            return
        if password and self.remember.isChecked():
            try:
                store_password(text, password)
            except Exception as exc:  # no keyring here: the password still works for this session
                self.error.setText(f"The keyring refused the password ({exc}); it is used for this session only.")
        if create:
            self.createRequested.emit(url, media, in_database)
        else:
            self.chosen.emit(url, media)
        self.accept()
