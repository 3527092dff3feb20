"""The capability profile window: a five-axis radar chart per agent and observation mode (Sphinx Figure 2),
overlaid, and the table beside it with every figure's 95 % interval; exports to CSV and LaTeX.

It only shows what `api.capability_profiles` computes (loaded off the UI thread)."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app import api
from desktop_app.capability.profile import (
    AXES,
    AXIS_TITLES,
    ProfileRow,
    length_rows,
    table_rows,
    write_csv,
    write_latex,
)
from desktop_app.ui.eval.colours import RUN_COLOURS
from desktop_app.ui.fit import open_at
from desktop_app.ui.tasks import run_in_background


class RadarChart(QWidget):
    """Each row a closed polygon over the five axes (0 at the centre, 100 % at the rim); an axis a row has
    no figure for is skipped by its polygon and marked "not measured" when no row has it."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows: list[ProfileRow] = []
        self.setMinimumSize(420, 380)

    def set_rows(self, rows: list[ProfileRow]) -> None:
        self.rows = rows
        self.update()

    def _point(self, centre: QPointF, radius: float, axis: int, value: float) -> QPointF:
        angle = -math.pi / 2 + 2 * math.pi * axis / len(AXES)
        return QPointF(centre.x() + radius * value * math.cos(angle), centre.y() + radius * value * math.sin(angle))

    def paintEvent(self, _event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.Antialiasing)
        text_colour = self.palette().windowText().color()
        legend_h = 20 * max(1, len(self.rows))
        area = QRectF(self.rect()).adjusted(110, 60, -110, -40 - legend_h)
        radius = max(40.0, min(area.width(), area.height()) / 2)
        centre = area.center()
        grid = QPen(QColor(150, 150, 150, 110), 1)
        painter.setPen(grid)
        for ring in (0.25, 0.5, 0.75, 1.0):  # the 25 % rings
            painter.drawPolygon(QPolygonF([self._point(centre, radius, a, ring) for a in range(len(AXES))]))
        font = QFont(self.font())
        painter.setFont(font)
        for a, axis in enumerate(AXES):
            painter.setPen(grid)
            painter.drawLine(centre, self._point(centre, radius, a, 1.0))
            measured = any(r.axes.get(axis) for r in self.rows)
            label = AXIS_TITLES[axis] + ("" if measured else "\n(not measured)")
            tip = self._point(centre, radius, a, 1.16)
            box = QRectF(tip.x() - 100, tip.y() - 18, 200, 36)
            box.moveTop(max(2.0, min(box.top(), self.height() - legend_h - box.height())))  # never cut off
            painter.setPen(text_colour if measured else QColor(140, 140, 140))
            painter.drawText(box, Qt.AlignCenter, label)
        painter.setPen(QColor(140, 140, 140))
        for ring in (0.5, 1.0):
            painter.drawText(self._point(centre, radius, 0, ring) + QPointF(4, 12), f"{int(ring * 100)} %")
        for i, row in enumerate(self.rows):
            colour = QColor(RUN_COLOURS[i % len(RUN_COLOURS)])
            points = [self._point(centre, radius, a, row.axes[axis]["rate"])
                      for a, axis in enumerate(AXES) if row.axes.get(axis)]
            fill = QColor(colour)
            fill.setAlpha(45)
            painter.setPen(QPen(colour, 2))
            painter.setBrush(fill)
            if len(points) >= 3:
                painter.drawPolygon(QPolygonF(points))
            elif len(points) == 2:
                painter.drawLine(points[0], points[1])
            painter.setBrush(colour)
            for point in points:
                painter.drawEllipse(point, 3.5, 3.5)
            y = self.height() - legend_h + 20 * i
            painter.fillRect(QRectF(20, y + 4, 12, 12), colour)
            painter.setPen(text_colour)
            extra = f"   SR {100 * row.sr['rate']:.1f} %" if row.sr else ""
            painter.drawText(QPointF(38, y + 15), row.label + extra)
        if not self.rows:
            painter.setPen(text_colour)
            painter.drawText(self.rect(), Qt.AlignCenter, "No capability runs yet.\nRun an agent with the grounding, "
                             "completion or replay protocol.")
        painter.end()


def _fill(table: QTableWidget, header: list[str], body: list[list[str]], words_last: bool = False) -> None:
    table.clear()
    table.setColumnCount(len(header))
    table.setRowCount(len(body))
    table.setHorizontalHeaderLabels(header)
    for r, cells in enumerate(body):
        for c, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if c >= 2 and not (words_last and c == len(cells) - 1):  # figures right, words (failures) left
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
            table.setItem(r, c, item)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)


class CapabilityView(QDialog):
    def __init__(self, project, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Capability profile")
        self.project = project
        self.rows: list[ProfileRow] = []
        self.chart = RadarChart()
        self.table = QTableWidget(0, 0)
        self.lengths = QTableWidget(0, 0)  # SR by the reference's length (replay runs)
        for table in (self.table, self.lengths):
            table.setEditTriggers(QTableWidget.NoEditTriggers)
            table.verticalHeader().setVisible(False)
        self.status = QLabel("Loading…")
        self.status.setWordWrap(True)
        csv_button, latex_button, refresh = QPushButton("Export CSV…"), QPushButton("Export LaTeX…"), \
            QPushButton("Refresh")
        csv_button.clicked.connect(lambda: self._export("CSV files (*.csv)", ".csv", write_csv))
        latex_button.clicked.connect(lambda: self._export("LaTeX files (*.tex)", ".tex", write_latex))
        refresh.clicked.connect(self.refresh)
        buttons = QHBoxLayout()
        buttons.addWidget(self.status, 1)
        for button in (refresh, csv_button, latex_button):
            buttons.addWidget(button)
        split = QSplitter(Qt.Vertical)
        split.addWidget(self.chart)
        split.addWidget(self.table)
        split.addWidget(self.lengths)
        split.setSizes([440, 160, 90])
        layout = QVBoxLayout(self)
        layout.addWidget(split, 1)
        layout.addLayout(buttons)
        open_at(self, 980, 760)
        self.refresh()

    def refresh(self) -> None:
        self.status.setText("Loading…")
        run_in_background(self, lambda: api.capability_profiles(self.project), self.show_rows,
                          lambda exc: self.status.setText(f"Could not compute the profile: {exc}"),
                          wait="Computing capability profiles")

    def show_rows(self, rows: list[ProfileRow]) -> None:
        self.rows = rows
        self.chart.set_rows(rows)
        _fill(self.table, *table_rows(rows), words_last=True)
        header, body = length_rows(rows)
        _fill(self.lengths, header, body)
        self.lengths.setVisible(bool(body))
        self.status.setText(f"{len(rows)} agent / observation pairs; the newest run of each protocol counts. "
                            "Percent with 95 % intervals; goal and app knowledge need knowledge-probe runs.")

    def _export(self, filter_text: str, suffix: str, writer) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export the capability profile", f"capability-profile{suffix}",
                                              filter_text)
        if path:
            try:
                writer(self.rows, path)
                self.status.setText(f"Wrote {path}")
            except OSError as exc:
                self.status.setText(f"Could not write {path}: {exc}")
