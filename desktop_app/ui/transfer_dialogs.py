"""File > Import and File > Export: pick a format and a path, run off the UI thread.

The Import dialog starts on "Detect", the same rule as `screenlab import` without --format
(formats.transfer.detected_format): the format the chosen file or folder holds is shown as soon as it is
typed or browsed, and a source it cannot tell is refused with the same message and the list of formats,
never read with a guess. The format used last is listed first after Detect (Settings.last_import_format),
one key away, never chosen by itself. An import refused for unreadable images lists every one and
offers to import the rest. The import options a format reads (FormatSpec.options: the box layout, what
becomes of shapes other than rectangles) show only while that format is selected.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.api.projects import Project
from desktop_app.api.samples import EpisodeFilter
from desktop_app.formats import FORMATS
from desktop_app.formats.box_layout import DIALOG_FIELD, LAYOUTS
from desktop_app.formats.detect import detect_format
from desktop_app.formats.ingest import BadImagesError, ImportOptions
from desktop_app.formats.labelling_tools import SHAPES_HELP
from desktop_app.formats.records import FormatError
from desktop_app.formats.transfer import detected_format, export_path, import_path
from desktop_app.images import IMAGE_SUFFIXES
from desktop_app.settings import Settings, load_settings, save_settings
from desktop_app.ui.fit import fit_combo
from desktop_app.ui.tasks import Task

RESULT_LINES = 8  # a longer result shows its first line here and the rest in a scrolling box
DATASET_FILES = ("Datasets and screenshots (*.json *.jsonl *.parquet *.tsv "
                 + " ".join(f"*{s}" for s in IMAGE_SUFFIXES) + ")")
DETECT_LAYOUT = "detect (the format's own rule)"
DETECT = ""  # the Import dialog's first format: what `screenlab import` does without --format
DETECT_FORMAT = "Detect (as screenlab import does)"
CANNOT_TELL = "cannot tell: choose the format"


def _row(*widgets: QWidget) -> QWidget:
    """Widgets side by side, the first one stretching."""
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    for index, widget in enumerate(widgets):
        layout.addWidget(widget, 1 if index == 0 else 0)
    return row


def _button(text: str, slot) -> QPushButton:
    button = QPushButton(text)
    button.clicked.connect(slot)
    return button


def _path_row(edit: QLineEdit, browse) -> QWidget:
    return _row(edit, _button("Browse...", browse))


def _shared_settings(parent) -> Settings:
    """The main window's Settings when it is the parent: it saves them too, and a copy of ours would be
    overwritten by its next save. Else the settings file's."""
    settings = getattr(parent, "settings", None)
    return settings if isinstance(settings, Settings) else load_settings()


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
        self.details = QPlainTextEdit(readOnly=True)
        self.details.setMaximumHeight(220)
        self.details.setVisible(False)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Close)
        self.buttons.accepted.connect(self.start)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(self.form)
        layout.addWidget(self.progress)
        layout.addWidget(self.result)
        layout.addWidget(self.details)
        layout.addWidget(self.buttons)
        self.task: Task | None = None
        self.report = None

    def show_result(self, text: str, error: bool = False) -> None:
        lines = text.split("\n")
        long = len(lines) > RESULT_LINES
        self.result.setStyleSheet("color: #d9534f" if error else "")
        self.result.setText(lines[0] if long else text)
        self.details.setPlainText("\n".join(lines[1:]) if long else "")
        self.details.setVisible(long)

    def run(self, fn) -> None:
        self.buttons.button(QDialogButtonBox.Ok).setEnabled(False)
        self.progress.setVisible(True)
        self.progress.setRange(0, 0)
        self.show_result("Working...")
        self.task = Task(fn, self, wait=None)  # its own progress bar
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
        self.show_result(report.summary())
        self.buttons.button(QDialogButtonBox.Ok).setEnabled(True)

    def _failed(self, exc) -> None:
        self.progress.setVisible(False)
        self.show_result(f"Nothing was changed.\n{exc}", error=True)
        self.buttons.button(QDialogButtonBox.Ok).setEnabled(True)


class ImportDialog(_TransferDialog):
    def __init__(self, project: Project, parent=None, settings: Settings | None = None):
        super().__init__("Import into project", parent)
        self.project = project
        self.settings = settings if settings is not None else _shared_settings(parent)
        self.format = QComboBox()
        self.format.addItem(DETECT_FORMAT, DETECT)
        last = self.settings.last_import_format
        readable = [name for name, spec in FORMATS.items() if spec.read]
        for name in sorted(readable, key=lambda n: n != last):  # the one used last first, the rest in order
            self.format.addItem(f"{name}: {FORMATS[name].description}", name)
        # 22 formats with long descriptions: the box keeps a sane width (its tooltip and the open list show all)
        self.format.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.format.setMinimumContentsLength(48)
        self.format.view().setTextElideMode(Qt.ElideNone)
        self.format.currentIndexChanged.connect(lambda _i: self.format.setToolTip(self.format.currentText()))
        self.format_hint = QLabel()  # why this format is selected: "detected", or that it cannot be told
        self.source = QLineEdit(placeholderText="a dataset file, or a folder (of screenshots, or a dataset's)")
        self.images = QLineEdit(placeholderText="optional: folder for relative image paths")
        self.form.addRow("Format", _row(self.format, self.format_hint))
        self.form.addRow("File or folder", _row(self.source, _button("File...", self._browse_file),
                                                 _button("Folder...", self._browse_folder)))
        self.form.addRow("Images folder", _path_row(self.images, self._browse_images))
        self.box_layout = QComboBox()
        self.box_layout.addItem(DETECT_LAYOUT, None)
        for layout, words in LAYOUTS.items():
            self.box_layout.addItem(words, layout)
        self.form.addRow(DIALOG_FIELD, self.box_layout)
        self.shapes = QComboBox()
        for rule, words in SHAPES_HELP.items():
            self.shapes.addItem(words[0].upper() + words[1:], rule)
        self.shapes.setToolTip("A polygon, circle, line or point (anything but a rectangle): refuse the file, "
                               "take it as its bounding box, or leave it out; the report counts each kind")
        self.form.addRow("Other shapes", self.shapes)
        # ImportOptions field -> its widget (currentData() is the value); shown for the formats that read it
        self.option_widgets: dict[str, QComboBox] = {"bbox_format": self.box_layout, "shapes": self.shapes}
        self.clip_boxes = QCheckBox("Clip boxes at the picture's edge")
        self.clip_boxes.setToolTip("A box reaching past its picture's edge is cut at the edge, one wholly outside "
                                   "left out (its action kept); each is listed in the report. Unticked, such a box "
                                   "stops the whole import")
        self.form.addRow("", self.clip_boxes)
        self.add_labels = QCheckBox("Add the classes the file names")
        self.add_labels.setToolTip("Classes the file names that this project does not have are added to it, in "
                                   "the file's order (Edit > Classes of this project lists them). Unticked, the "
                                   "import is refused, naming every one of them")
        self.form.addRow("", self.add_labels)
        self.format.currentIndexChanged.connect(self._show_options)
        self.import_rest = self.buttons.addButton("Import the good files", QDialogButtonBox.ActionRole)
        self.import_rest.setVisible(False)
        self.import_rest.clicked.connect(self._import_rest)
        self._attempt: tuple[str, Path, ImportOptions] | None = None  # the import running or last run
        self._refused: tuple[str, Path, ImportOptions] | None = None  # one refused for bad images
        self._select_default()
        self._show_options()
        self.source.textChanged.connect(self._source_changed)
        self.format.activated.connect(self._format_chosen)
        self.show_result("An import is all or nothing: a problem anywhere leaves the project unchanged.")

    # -- which format ------------------------------------------------------------------------
    def _select(self, name: str, hint: str) -> None:
        self.format.setCurrentIndex(self.format.findData(name))
        self.format_hint.setText(hint)

    def _select_default(self) -> None:
        self._select(DETECT, "")

    def _source_changed(self, text: str) -> None:
        self._forget_refusal()
        detected = detect_format(text.strip()) if text.strip() else None
        if detected:
            self._select(detected, "detected")
        elif self.format_hint.text() == "detected" or self.format.currentData() == DETECT:
            # a guess about another source no longer holds: Detect again, which will refuse to guess
            self._select(DETECT, CANNOT_TELL if text.strip() and Path(text.strip()).exists() else "")

    def _format_chosen(self, _index: int) -> None:
        self._forget_refusal()
        self.format_hint.setText("")  # the user's own choice needs no reason

    def _read_options(self) -> tuple[str, ...]:
        spec = FORMATS.get(self.format.currentData())
        return spec.options if spec else ()

    def _show_options(self, _index: int = -1) -> None:
        reads = self._read_options()
        for name, widget in self.option_widgets.items():
            self.form.setRowVisible(widget, name in reads)

    # -- choosing the source -------------------------------------------------------------------
    def _start_folder(self) -> str:
        current = Path(self.source.text().strip())
        return str(current if current.is_dir() else current.parent) if self.source.text().strip() else ""

    def _browse_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Dataset file or screenshot", self._start_folder(),
                                              f"{DATASET_FILES};;All files (*)")
        if path:
            self.source.setText(path)

    def _browse_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Folder of screenshots, or a dataset's folder",
                                                self._start_folder())
        if path:
            self.source.setText(path)

    def _browse_images(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Images folder")
        if path:
            self.images.setText(path)

    # -- importing -----------------------------------------------------------------------------
    def start(self) -> None:
        if not self.source.text().strip():
            self.show_result("Choose a file or folder to import.")
            return
        chosen = {name: widget.currentData() for name, widget in self.option_widgets.items()
                  if name in self._read_options()}
        options = ImportOptions(images_dir=Path(self.images.text()) if self.images.text().strip() else None,
                                clip_boxes=self.clip_boxes.isChecked(), add_labels=self.add_labels.isChecked(),
                                **chosen)
        self._import(self.format.currentData(), Path(self.source.text().strip()), options)

    def _import(self, fmt: str, source: Path, options: ImportOptions) -> None:
        self._forget_refusal()
        if fmt == DETECT:  # as `screenlab import` without --format: the same rule, the same refusal
            try:
                fmt = detected_format(source)
            except FormatError as exc:
                self.show_result(str(exc))
                return
        self._attempt = (fmt, source, options)
        self.run(lambda progress: import_path(self.project, source, fmt, options, progress))

    def _import_rest(self) -> None:
        fmt, source, options = self._refused
        self._import(fmt, source, replace(options, skip_bad_images=True))

    def _forget_refusal(self) -> None:
        self._refused = None
        self.import_rest.setVisible(False)

    def _finished(self, report) -> None:
        super()._finished(report)
        self._remember(self._attempt[0])

    def _failed(self, exc) -> None:
        super()._failed(exc)
        if isinstance(exc, BadImagesError) and exc.importable:
            self._refused = self._attempt
            what = "good files" if self._attempt[0] == "images" else "other episodes"
            self.import_rest.setText(f"Import the {exc.importable} {what}")
            self.import_rest.setVisible(True)

    def _remember(self, fmt: str) -> None:
        self.settings.last_import_format = fmt
        try:
            save_settings(self.settings)
        except OSError as exc:  # the import is done; only the default for next time is lost
            self.show_result(f"{self.result.text()}\n(could not save the settings: {exc})")


class ExportDialog(_TransferDialog):
    def __init__(self, project: Project, current_filter: EpisodeFilter, parent=None):
        super().__init__("Export episodes", parent)
        self.project = project
        self.current_filter = current_filter
        self.format = QComboBox()
        for name, spec in FORMATS.items():
            if spec.write:
                self.format.addItem(f"{name}: {spec.description}", name)
        fit_combo(self.format, 48)  # long descriptions: as in Import, the open list and the tooltip show them whole
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
