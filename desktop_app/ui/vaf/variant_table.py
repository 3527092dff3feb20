"""The variant table: which settings a study generates (the paper's 48 by default), editable, saved and
loaded as JSON, and Generate variants, which renders the original and every ticked setting in the GUI's
browser (vaf.study.generate_study, off the UI thread) with a progress bar and Cancel, then shows the report.

A row is a family (a combo), a value and a tick; its variant name is worked out as it is typed and a
value its family does not take is marked red with the reason (vaf.settings.check). Saving or generating
checks the whole table and says what is wrong instead of going on.
"""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStyledItemDelegate,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app import api
from desktop_app.ui.shortcuts import hint
from desktop_app.ui.vaf.calls import error_text, in_browser
from desktop_app.vaf.settings import FAMILIES, Setting, SettingsError, check
from desktop_app.vaf.study import generate_study

USE, FAMILY, VALUE, NAME = range(4)
BAD = QColor("#c0392b")


class FamilyDelegate(QStyledItemDelegate):
    """The family column is edited with a combo of the known families."""

    def createEditor(self, parent, _option, _index):
        combo = QComboBox(parent)
        for name, family in FAMILIES.items():
            combo.addItem(f"{name}  ({family.title})", name)
        return combo

    def setEditorData(self, editor, index) -> None:
        editor.setCurrentIndex(max(0, editor.findData(index.data())))

    def setModelData(self, editor, model, index) -> None:
        model.setData(index, editor.currentData())


class _Progress(QObject):
    step = Signal(int, int, str)  # emitted in the browser thread, received on the UI thread


class VariantTableTab(QWidget):
    generated = Signal(str)  # the study's name, after variants were stored
    message = Signal(str)

    def __init__(self, project, render_service, spec_provider, parent=None):
        super().__init__(parent)
        self.project = project
        self.render = render_service
        self.spec_provider = spec_provider  # () -> PageSpec, ValueError saying what is missing
        self.cancel_event: threading.Event | None = None
        self.report = None  # the last StudyReport
        self._progress = _Progress(self)
        self._progress.step.connect(self._stepped)

        self.page_line = QLabel()
        self.page_line.setWordWrap(True)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["Use", "Family", "Value", "Variant"])
        self.table.setItemDelegateForColumn(FAMILY, FamilyDelegate(self.table))
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.DoubleClicked | QAbstractItemView.EditKeyPressed
                                   | QAbstractItemView.AnyKeyPressed)
        self.table.verticalHeader().setDefaultSectionSize(22)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(USE, QHeaderView.ResizeToContents)
        header.setSectionResizeMode(FAMILY, QHeaderView.Interactive)
        header.setSectionResizeMode(VALUE, QHeaderView.Interactive)
        header.setSectionResizeMode(NAME, QHeaderView.Stretch)
        self.table.setColumnWidth(FAMILY, 150)
        self.table.setColumnWidth(VALUE, 190)
        self.table.itemChanged.connect(self._row_changed)

        buttons = QHBoxLayout()
        for text, tip, slot in (
                ("Reset to the paper's 48", "The paper's Table 1: 48 settings in eight families", self.reset),
                ("Add row", "A new setting (double-click a cell to edit it)", self.add_row),
                ("Remove rows", "Remove the selected rows", self.remove_rows),
                ("Save table…", "Save the ticked settings as a JSON table", self.save_table),
                ("Load table…", "A table saved before (JSON)", self.load_table)):
            button = QPushButton(text)
            button.setToolTip(tip)
            button.clicked.connect(slot)
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.count_label = QLabel()
        buttons.addWidget(self.count_label)

        self.generate_button = QPushButton("Generate variants")
        self.generate_button.setToolTip("Render the original and every ticked setting in the browser (offline) and "
                                        "queue them for verification; variants already made are kept")
        self.generate_button.clicked.connect(self.generate)
        self.progress = QProgressBar()
        self.progress.setFormat("%v / %m")
        self.progress.setTextVisible(True)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.setEnabled(False)
        self.progress_label = QLabel()
        run_row = QHBoxLayout()
        run_row.addWidget(self.generate_button)
        run_row.addWidget(self.progress, 1)
        run_row.addWidget(self.cancel_button)
        self.report_text = QPlainTextEdit(readOnly=True)
        self.report_text.setPlaceholderText("The report of the last generation shows here.")

        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addLayout(buttons)
        top_layout.addWidget(self.table, 1)
        bottom = QWidget()
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        bottom_layout.addLayout(run_row)
        bottom_layout.addWidget(self.progress_label)
        bottom_layout.addWidget(self.report_text, 1)
        split = QSplitter(Qt.Vertical)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setSizes([520, 200])
        layout = QVBoxLayout(self)
        layout.addWidget(self.page_line)
        layout.addWidget(split, 1)
        self.set_settings(api.vaf_settings())

    # the table ---------------------------------------------------------------------------------
    def set_settings(self, settings: list[Setting], ticked: bool = True) -> None:
        self.table.setRowCount(0)
        for setting in settings:
            self._append(setting, ticked)
        for row in range(self.table.rowCount()):
            self._refresh_row(row)
        self._update_count()

    def _append(self, setting: Setting, ticked: bool = True) -> int:
        row = self.table.rowCount()
        blocked = self.table.blockSignals(True)  # itemChanged would see a half-made row
        self.table.insertRow(row)
        use = QTableWidgetItem()
        use.setFlags(Qt.ItemIsUserCheckable | Qt.ItemIsEnabled | Qt.ItemIsSelectable)
        use.setCheckState(Qt.Checked if ticked else Qt.Unchecked)
        name = QTableWidgetItem()
        name.setFlags(Qt.ItemIsEnabled | Qt.ItemIsSelectable)
        for column, item in ((USE, use), (FAMILY, QTableWidgetItem(setting.family)),
                             (VALUE, QTableWidgetItem(setting.value)), (NAME, name)):
            self.table.setItem(row, column, item)
        self.table.blockSignals(blocked)
        return row

    def _setting(self, row: int) -> Setting:
        return Setting(self.table.item(row, FAMILY).text().strip(), self.table.item(row, VALUE).text().strip())

    def _refresh_row(self, row: int) -> None:
        """The row's variant name, or why its value is not one its family takes (in red)."""
        if any(self.table.item(row, c) is None for c in (USE, FAMILY, VALUE, NAME)):
            return
        setting = self._setting(row)
        family = FAMILIES.get(setting.family)
        self.table.blockSignals(True)
        self.table.item(row, VALUE).setToolTip(family.value_help if family else "")
        name_item = self.table.item(row, NAME)
        try:
            check([setting], "this row")
            name_item.setText(setting.name)
            name_item.setForeground(self.palette().text().color())
            name_item.setToolTip("")
        except SettingsError as exc:
            reason = str(exc).split(": ", 1)[-1]
            name_item.setText(f"⚠ {reason}")
            name_item.setForeground(BAD)
            name_item.setToolTip(reason)
        self.table.blockSignals(False)

    def _row_changed(self, item: QTableWidgetItem) -> None:
        self._refresh_row(item.row())
        self._update_count()

    def _update_count(self) -> None:
        ticked = len(self.settings())
        self.count_label.setText(f"{self.table.rowCount()} settings, {ticked} ticked")

    def settings(self, ticked_only: bool = True) -> list[Setting]:
        return [self._setting(r) for r in range(self.table.rowCount())
                if not ticked_only or self.table.item(r, USE).checkState() == Qt.Checked]

    def set_ticked(self, names) -> None:
        """Tick exactly the settings with these variant names (e.g. background_ff9800)."""
        wanted = set(names)
        for row in range(self.table.rowCount()):
            self.table.item(row, USE).setCheckState(Qt.Checked if self._setting(row).name in wanted else Qt.Unchecked)

    def reset(self) -> None:
        self.set_settings(api.vaf_settings())
        self.message.emit("The paper's 48 settings")

    def add_row(self) -> None:
        row = self._append(Setting("background", ""))
        self._refresh_row(row)
        self._update_count()
        self.table.setCurrentCell(row, VALUE)
        self.table.scrollToItem(self.table.item(row, VALUE))
        self.table.editItem(self.table.item(row, VALUE))

    def remove_rows(self) -> None:
        rows = sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True)
        for row in rows:
            self.table.removeRow(row)
        self._update_count()

    def save_table(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save the variant table", "variants.json", "JSON files (*.json)")
        if path:
            self.save_to(path)

    def save_to(self, path: str) -> bool:
        try:
            api.save_vaf_settings(self.settings(), path)
        except (SettingsError, OSError) as exc:
            QMessageBox.warning(self, "Cannot save the table", error_text(exc))
            return False
        self.message.emit(f"{len(self.settings())} settings saved to {path}")
        return True

    def load_table(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Load a variant table", "", "JSON files (*.json);;All files (*)")
        if path:
            self.load_from(path)

    def load_from(self, path: str) -> bool:
        try:
            settings = api.vaf_settings(path)
        except (SettingsError, OSError, ValueError) as exc:
            QMessageBox.warning(self, "Cannot load the table", error_text(exc))
            return False
        self.set_settings(settings)
        self.message.emit(f"{len(settings)} settings loaded from {path}")
        return True

    # generating --------------------------------------------------------------------------------
    def generating(self) -> bool:
        return self.cancel_event is not None

    def generate(self) -> None:
        if self.generating():
            return
        try:
            spec = self.spec_provider()
        except (ValueError, OSError) as exc:
            QMessageBox.warning(self, "Choose the page and its target first", error_text(exc))
            return
        try:
            settings = check(self.settings())
        except SettingsError as exc:
            QMessageBox.warning(self, "The variant table has a problem", str(exc))
            return
        project, cancel, relay = self.project, threading.Event(), self._progress
        self.cancel_event = cancel
        self.generate_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setRange(0, len(settings) + 1)
        self.progress.setValue(0)
        self.progress_label.setText(f"Starting the browser for {spec.name}…")
        self.report_text.setPlainText("")

        def work(renderer):
            return generate_study(project, renderer, spec, settings,
                                  lambda i, n, name: relay.step.emit(i, n, name), cancel)

        in_browser(self.render, self, work, self._generated, self._failed)

    def _stepped(self, i: int, n: int, name: str) -> None:
        self.progress.setRange(0, n)
        self.progress.setValue(i)
        self.progress_label.setText(f"Rendering {name} ({i + 1} of {n})" if name else "Storing the variants…")

    def cancel(self) -> None:
        if self.cancel_event is not None:
            self.cancel_event.set()
            self.progress_label.setText("Cancelling after the variant being rendered…")

    def _done(self) -> bool:
        cancelled = self.cancel_event is not None and self.cancel_event.is_set()
        self.cancel_event = None
        self.generate_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        return cancelled

    def _generated(self, report) -> None:
        cancelled = self._done()
        self.report = report
        self.progress.setValue(self.progress.maximum())
        lines = report.lines()
        if cancelled:
            lines.insert(0, "Cancelled: nothing was stored.")
        elif report.added:
            lines.append(f"Verify them in the Verify tab ({hint(('review.accept', 'accept'), ('review.reject', 'reject'))}).")
        self.report_text.setPlainText("\n".join(lines))
        self.progress_label.setText("Cancelled" if cancelled else f"Done: {len(report.added)} variants added")
        self.message.emit(lines[0])
        if report.added or report.kept:
            self.generated.emit(report.study)

    def _failed(self, exc: BaseException) -> None:
        self._done()
        text = error_text(exc)
        self.progress_label.setText("Not generated")
        self.report_text.setPlainText(f"Could not generate the variants: {text}")
        self.message.emit(f"Could not generate the variants: {text}")
