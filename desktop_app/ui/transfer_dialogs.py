"""File > Import and File > Export: pick a format and a path, run off the UI thread."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.formats import FORMATS
from desktop_app.formats.ingest import ImportOptions
from desktop_app.formats.transfer import export_path, import_path
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter
from desktop_app.ui.tasks import Task


def _path_row(edit: QLineEdit, browse) -> QWidget:
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    button = QPushButton("Browse...")
    button.clicked.connect(browse)
    layout.addWidget(edit, 1)
    layout.addWidget(button)
    return row


class _TransferDialog(QDialog):
    """Common frame: a form, a progress bar, a result line; runs one Task."""

    def __init__(self, title: str, parent=None):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(560, 0)
        self.form = QFormLayout()
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.result = QLabel()
        self.result.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Close)
        self.buttons.accepted.connect(self.start)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(self.form)
        layout.addWidget(self.progress)
        layout.addWidget(self.result)
        layout.addWidget(self.buttons)
        self.task: Task | None = None
        self.report = None

    def run(self, fn) -> None:
        self.buttons.button(QDialogButtonBox.Ok).setEnabled(False)
        self.progress.setVisible(True)
        self.progress.setRange(0, 0)
        self.result.setText("Working...")
        self.task = Task(fn, self)
        self.task.progress.connect(self._progress)
        self.task.finished.connect(self._finished)
        self.task.failed.connect(self._failed)
        self.task.start()

    def _progress(self, stage: str, done: int, total: int) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self.progress.setFormat(f"{stage} %v/%m")

    def _finished(self, report) -> None:
        self.report = report
        self.progress.setVisible(False)
        self.result.setStyleSheet("")
        self.result.setText(report.summary())
        self.buttons.button(QDialogButtonBox.Ok).setEnabled(True)

    def _failed(self, exc) -> None:
        self.progress.setVisible(False)
        self.result.setStyleSheet("color: #d9534f")
        self.result.setText(f"Nothing was changed.\n{exc}")
        self.buttons.button(QDialogButtonBox.Ok).setEnabled(True)


class ImportDialog(_TransferDialog):
    def __init__(self, project: Project, parent=None):
        super().__init__("Import into project", parent)
        self.project = project
        self.format = QComboBox()
        for name, spec in FORMATS.items():
            if spec.read:
                self.format.addItem(f"{name}: {spec.description}", name)
        self.source = QLineEdit()
        self.images = QLineEdit(placeholderText="optional: folder for relative image paths")
        self.form.addRow("Format", self.format)
        self.form.addRow("File or folder", _path_row(self.source, self._browse_source))
        self.form.addRow("Images folder", _path_row(self.images, self._browse_images))
        self.result.setText("An import is all or nothing: a problem anywhere leaves the project unchanged.")

    def _browse_source(self) -> None:
        if self.format.currentData() == "images":
            path = QFileDialog.getExistingDirectory(self, "Folder of screenshots")
        else:
            path, _ = QFileDialog.getOpenFileName(self, "Dataset file", "", "JSON (*.json *.jsonl);;All files (*)")
        if path:
            self.source.setText(path)

    def _browse_images(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Images folder")
        if path:
            self.images.setText(path)

    def start(self) -> None:
        if not self.source.text().strip():
            self.result.setText("Choose a file or folder to import.")
            return
        fmt = self.format.currentData()
        source = Path(self.source.text().strip())
        options = ImportOptions(images_dir=Path(self.images.text()) if self.images.text().strip() else None)
        self.run(lambda progress: import_path(self.project, source, fmt, options, progress))


class ExportDialog(_TransferDialog):
    def __init__(self, project: Project, current_filter: EpisodeFilter, parent=None):
        super().__init__("Export episodes", parent)
        self.project = project
        self.current_filter = current_filter
        self.format = QComboBox()
        for name, spec in FORMATS.items():
            if spec.write:
                self.format.addItem(f"{name}: {spec.description}", name)
        self.out = QLineEdit(placeholderText="a new (or empty) folder")
        self.scope = QComboBox()
        self.scope.addItem("All episodes", "all")
        self.scope.addItem("Episodes shown in the browser (current filter)", "filter")
        self.scope.addItem("Accepted episodes only", "accepted")
        self.form.addRow("Format", self.format)
        self.form.addRow("Output folder", _path_row(self.out, self._browse))
        self.form.addRow("Episodes", self.scope)

    def _browse(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Output folder (new or empty)")
        if path:
            self.out.setText(path)

    def start(self) -> None:
        if not self.out.text().strip():
            self.result.setText("Choose an output folder.")
            return
        flt = {"all": EpisodeFilter(), "filter": self.current_filter,
               "accepted": EpisodeFilter(review_statuses=("accepted",))}[self.scope.currentData()]
        fmt, out = self.format.currentData(), Path(self.out.text().strip())
        self.run(lambda progress: export_path(self.project, out, fmt, flt))
