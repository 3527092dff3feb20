"""Verify: the paper's human filter. The pending variants of a study one at a time, the original page and
the variant side by side (fitted to width, scrolling together), the setting, the render's warnings (a font
that is not installed, a target that is not visible) and the target's computed style beside the
original's. Keys as in the verification queue: Y accept, N reject with a reason, A / D previous / next.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app import api
from desktop_app.ui.review_panel import RejectDialog, key_buttons
from desktop_app.ui.vaf.calls import error_text
from desktop_app.ui.vaf.page_view import TARGET, PageView, sync_scrolling
from desktop_app.vaf import views
from desktop_app.vaf.settings import ORIGINAL
from desktop_app.vaf.study import REJECT_REASONS

STATUS_MARK = {"pending": "○", "accepted": "✓", "edited": "✓", "rejected": "✗"}
STYLE_KEYS = ("background-color", "color", "font-family", "font-size", "zoom", "filter")


class VerifyTab(QWidget):
    message = Signal(str)
    reviewed = Signal(int)  # a variant's id, after its verdict

    def __init__(self, project, reviewer: str = "", parent=None):
        super().__init__(parent)
        self.project = project
        self.reviewer = reviewer or None
        self.variants: list = []  # Variant rows of the study, as listed
        self.original = None
        self._original_shown: int | None = None
        self._details: dict[int, dict] = {}

        self.study = QComboBox()
        self.study.setMinimumContentsLength(16)
        self.study.currentIndexChanged.connect(lambda _i: self.refresh())
        self.pending_only = QCheckBox("Pending only")
        self.pending_only.setChecked(True)
        self.pending_only.setToolTip("Off: every variant of the study, to change a verdict")
        self.pending_only.toggled.connect(lambda _on: self.refresh())
        self.counts = QLabel()
        top = QHBoxLayout()
        top.addWidget(QLabel("Study:"))
        top.addWidget(self.study)
        top.addWidget(self.pending_only)
        top.addSpacing(12)
        top.addWidget(self.counts, 1)

        self.list = QListWidget()
        self.list.currentRowChanged.connect(self._show_row)
        self.original_view, self.variant_view = PageView("width"), PageView("width")
        self.original_title, self.variant_title = QLabel("<b>Original</b>"), QLabel("<b>Variant</b>")
        self.variant_title.setTextFormat(Qt.RichText)
        sync_scrolling(self.original_view, self.variant_view)
        pictures = QWidget()
        grid = QHBoxLayout(pictures)
        grid.setContentsMargins(0, 0, 0, 0)
        for title, view in ((self.original_title, self.original_view), (self.variant_title, self.variant_view)):
            column = QVBoxLayout()
            column.addWidget(title)
            column.addWidget(view, 1)
            grid.addLayout(column, 1)

        self.setting = QLabel()
        self.setting.setTextFormat(Qt.PlainText)
        self.setting.setStyleSheet("font-size: 15px; font-weight: bold")
        self.family = QLabel()
        self.status = QLabel()
        self.status.setTextFormat(Qt.PlainText)  # a reject reason a person typed
        self.status.setWordWrap(True)
        self.warnings = QLabel()
        self.warnings.setWordWrap(True)
        self.warnings.setTextFormat(Qt.PlainText)
        self.style_table = QTableWidget(0, 3)
        self.style_table.setHorizontalHeaderLabels(["Property", "Original", "Variant"])
        self.style_table.verticalHeader().setVisible(False)
        self.style_table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.style_table.setFocusPolicy(Qt.NoFocus)
        header = self.style_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.Stretch)  # long font stacks wrap, never scroll sideways
        header.setSectionResizeMode(2, QHeaderView.Stretch)
        self.style_table.setWordWrap(True)
        self.style_table.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        info = QWidget()
        form = QFormLayout(info)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow(self.setting)
        form.addRow("Family", self.family)
        form.addRow("Status", self.status)
        form.addRow("Warnings", self.warnings)
        form.addRow(QLabel("The target's computed style:"))
        form.addRow(self.style_table)

        split = QSplitter(Qt.Horizontal)
        split.addWidget(self.list)
        split.addWidget(pictures)
        split.addWidget(info)
        split.setStretchFactor(1, 1)
        split.setSizes([170, 820, 330])
        buttons, self.buttons = key_buttons((("review.accept", "Accept", lambda: self.accept_current()),
                                             ("review.reject", "Reject…", lambda: self.reject_current()),
                                             ("nav.prev", "Previous", lambda: self.step(-1)),
                                             ("nav.next", "Next", lambda: self.step(1))))
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(split, 1)
        layout.addLayout(buttons)
        self.reload_studies()

    # the queue -----------------------------------------------------------------------------------
    def reload_studies(self, chosen: str | None = None) -> None:
        """The project's studies in the combo (the chosen one, or the one shown, selected)."""
        chosen = chosen or self.study.currentText()
        names = sorted(api.vaf_studies(self.project))
        self.study.blockSignals(True)
        self.study.clear()
        self.study.addItems(names)
        if chosen in names:
            self.study.setCurrentText(chosen)
        self.study.blockSignals(False)
        self.refresh()

    def refresh(self, keep: int | None = None) -> None:
        """List the study's variants again (keep: the row to stay on, e.g. after a verdict)."""
        study = self.study.currentText()
        shown = api.vaf_variants(self.project, study) if study else []
        self.original = next((v for v in shown if v.family == ORIGINAL), None)
        self._details.clear()
        if self.original is None or self.original.episode_id != self._original_shown:
            self._original_shown = None
        listed = [v for v in shown if v.family != ORIGINAL]
        counts = {s: sum(v.review_status == s for v in listed) for s in ("pending", "accepted", "rejected")}
        counts["accepted"] += sum(v.review_status == "edited" for v in listed)
        self.counts.setText(f"{counts['pending']} pending · {counts['accepted']} accepted · "
                            f"{counts['rejected']} rejected" if study else
                            "No variants yet: generate some in the Variant table tab")
        if self.pending_only.isChecked():
            listed = [v for v in listed if v.review_status == "pending"]
        self.variants = listed
        row = self.list.currentRow() if keep is None else keep
        self.list.blockSignals(True)
        self.list.clear()
        for v in listed:
            item = QListWidgetItem(f"{STATUS_MARK.get(v.review_status, '?')}  {v.setting}")
            item.setToolTip(f"{v.key}: {v.review_status}")
            self.list.addItem(item)
        self.list.blockSignals(False)
        if listed:
            self.list.setCurrentRow(min(max(row, 0), len(listed) - 1))
            self._show_row(self.list.currentRow())
        else:
            self._show_row(-1)

    def current(self):
        row = self.list.currentRow()
        return self.variants[row] if 0 <= row < len(self.variants) else None

    def step(self, delta: int) -> None:
        if self.variants:
            self.list.setCurrentRow(min(max(self.list.currentRow() + delta, 0), len(self.variants) - 1))

    def _detail(self, episode_id: int) -> dict:
        if episode_id not in self._details:
            self._details[episode_id] = views.variant_detail(self.project, episode_id)
        return self._details[episode_id]

    def _show_row(self, _row: int) -> None:
        variant = self.current()
        if self.original is not None and self._original_shown != self.original.episode_id:
            self.original_view.set_png(views.page_png(self.project, self.original.episode_id),
                                       "The original's picture is missing")
            self.original_view.add_box(self.original.target, TARGET, 3, tip="the target")
            self._original_shown = self.original.episode_id
        elif self.original is None:
            self.original_view.clear("No original in this study")
        if variant is None:
            empty = "Nothing left to verify" if self.study.count() else "No study yet"
            self.variant_view.clear(empty)
            self.variant_title.setText("<b>Variant</b>")
            for label in (self.setting, self.family, self.status, self.warnings):
                label.setText("")
            self.style_table.setRowCount(0)
            return
        detail = self._detail(variant.episode_id)
        self.variant_title.setText(f"<b>Variant:</b> {html.escape(variant.setting)}")
        self.variant_view.set_png(views.page_png(self.project, variant.episode_id), "The variant's picture is missing")
        self.variant_view.add_box(variant.target, TARGET, 3, tip="the target")
        if variant.target:
            self.variant_view.centre_on_box(variant.target)  # the original follows (scrolling together)
        else:
            self.variant_view.set_message("The target is not visible in this variant")
        self.setting.setText(variant.setting)
        self.family.setText(f"{variant.family} = {variant.value}")
        status = detail.get("status", variant.review_status)
        reason = detail.get("reason", "")
        self.status.setText(status + (f" ({reason})" if reason and status == "rejected" else "")
                            + (f" by {detail['reviewer']}" if detail.get("reviewer") and status != "pending" else ""))
        warnings = list(detail.get("warnings") or [])
        if detail.get("blocked"):
            warnings.append(f"{len(detail['blocked'])} outside requests blocked (rendered offline)")
        self.warnings.setText("\n".join(warnings) or "none")
        self.warnings.setStyleSheet("color: #b35c00" if warnings else "color: gray")
        mine = detail.get("style") or {}
        theirs = self._detail(self.original.episode_id).get("style", {}) if self.original else {}
        keys = [k for k in STYLE_KEYS if k in mine or k in theirs] + \
            [k for k in mine if k not in STYLE_KEYS]
        self.style_table.setRowCount(len(keys))
        for r, key in enumerate(keys):
            cells = (key, str(theirs.get(key, "")), str(mine.get(key, "")))
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if c == 2 and cells[1] != cells[2]:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                self.style_table.setItem(r, c, item)
        self.style_table.resizeRowsToContents()

    # verdicts ------------------------------------------------------------------------------------
    def accept_current(self) -> None:
        self._decide("accept")

    def reject_current(self, reason: str | None = None) -> None:
        variant = self.current()
        if variant is None:
            return
        if reason is None:
            dialog = RejectDialog(self, REJECT_REASONS, f"Reject {variant.setting}")
            if not dialog.exec():
                return
            reason = dialog.text()
        self._decide("reject", reason, variant)

    def _decide(self, decision: str, reason: str = "", variant=None) -> None:
        variant = variant or self.current()
        if variant is None:
            return
        try:
            status = api.verify_variant(self.project, variant.episode_id, decision, reason, self.reviewer)
        except (KeyError, ValueError) as exc:
            self.message.emit(f"{variant.setting}: {error_text(exc)}")
            return
        self.message.emit(f"{variant.setting}: {status}" + (f" ({reason})" if reason else ""))
        row = self.list.currentRow()
        # pending only: the next variant takes this row; otherwise go on to the next row
        self.refresh(keep=row if self.pending_only.isChecked() else row + 1)
        self.reviewed.emit(variant.episode_id)

    def focus_queue(self) -> None:
        """The tab was brought forward: keys to the queue, the target in view (the views have their size now)."""
        self.variant_view.setFocus()
        variant = self.current()
        if variant is not None and variant.target:
            self.variant_view.centre_on_box(variant.target)
