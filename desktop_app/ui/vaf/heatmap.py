"""The delta heatmap (the paper's Fig. 2), painted: a row per setting, a column per run, the cell's colour
vaf.figures.delta_colour(delta) (blue: more than the original page, red: less, grey: not run), its text the
delta in points. A click (or the arrow keys) chooses a cell: cellChosen(setting, column)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QLinearGradient, QPainter, QPen
from PySide6.QtWidgets import QToolTip, QWidget

from desktop_app.ui.eval.colours import text_on
from desktop_app.vaf.figures import delta_colour

CELL_W, CELL_H, LABEL_W, HEAD_H, LEGEND_H, PAD, TITLE_H = 80, 20, 170, 50, 44, 8, 40
SUBTITLE = "points against the original page; grey: not run"
LIMIT = 0.5  # the colour scale's ends: ±50 points


class HeatmapWidget(QWidget):
    cellChosen = Signal(str, int)  # setting, column

    def __init__(self, parent=None):
        super().__init__(parent)
        self.names: list[str] = []
        self.columns: list[str] = []
        self.cells: list[list] = []
        self.title = "Δ TCR: target click rate"
        self.chosen: tuple[int, int] | None = None
        self.setFocusPolicy(Qt.StrongFocus)
        self.setMouseTracking(True)

    def set_data(self, names: list[str], columns: list[str], cells: list[list], title: str = "") -> None:
        self.names, self.columns, self.cells = list(names), list(columns), [list(r) for r in cells]
        if title:
            self.title = title
        if self.chosen and (self.chosen[0] >= len(self.names) or self.chosen[1] >= len(self.columns)):
            self.chosen = None
        self.updateGeometry()
        self.adjustSize()
        self.update()

    def text_of(self, row: int, column: int) -> str:
        value = self.cells[row][column]
        return "n/a" if value is None else f"{100 * value:+.0f}"

    # geometry ------------------------------------------------------------------------------------
    def sizeHint(self) -> QSize:
        bold = self.font()
        bold.setBold(True)
        words = max(QFontMetrics(bold).horizontalAdvance(self.title),
                    QFontMetrics(self.font()).horizontalAdvance(SUBTITLE))
        return QSize(PAD * 2 + max(LABEL_W + CELL_W * max(1, len(self.columns)), words + 4),
                     PAD + TITLE_H + HEAD_H + CELL_H * max(1, len(self.names)) + LEGEND_H)

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def _origin(self) -> QPointF:
        return QPointF(PAD + LABEL_W, PAD + TITLE_H + HEAD_H)

    def cell_rect(self, row: int, column: int) -> QRectF:
        o = self._origin()
        return QRectF(o.x() + column * CELL_W, o.y() + row * CELL_H, CELL_W - 2, CELL_H - 2)

    def cell_at(self, point: QPointF) -> tuple[int, int] | None:
        o = self._origin()
        column, row = int((point.x() - o.x()) // CELL_W), int((point.y() - o.y()) // CELL_H)
        if point.x() >= o.x() and point.y() >= o.y() and row < len(self.names) and column < len(self.columns):
            return row, column
        return None

    # painting ------------------------------------------------------------------------------------
    def paintEvent(self, _event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.Antialiasing)
        ink = self.palette().windowText().color()
        metrics = QFontMetrics(self.font())
        painter.setPen(ink)
        bold = self.font()
        bold.setBold(True)
        painter.setFont(bold)
        painter.drawText(QRectF(PAD, PAD, self.width() - 2 * PAD, 20), Qt.AlignLeft | Qt.AlignVCenter, self.title)
        painter.setFont(self.font())
        painter.drawText(QRectF(PAD, PAD + 18, self.width() - 2 * PAD, 20), Qt.AlignLeft | Qt.AlignVCenter, SUBTITLE)
        if not self.names:
            painter.drawText(QRectF(PAD, PAD + TITLE_H, self.width() - 2 * PAD, 60), Qt.AlignLeft | Qt.TextWordWrap,
                             "No results yet: tick a finished browse run.")
            painter.end()
            return
        o = self._origin()
        for c, column in enumerate(self.columns):  # headers: up to three lines in the column's width
            box = QRectF(o.x() + c * CELL_W, o.y() - HEAD_H, CELL_W - 4, HEAD_H - 4)
            painter.drawText(box, Qt.AlignHCenter | Qt.AlignBottom | Qt.TextWrapAnywhere, column)
        for r, name in enumerate(self.names):
            label = QRectF(PAD, o.y() + r * CELL_H, LABEL_W - 8, CELL_H - 2)
            painter.setPen(ink)
            painter.drawText(label, Qt.AlignRight | Qt.AlignVCenter, metrics.elidedText(name, Qt.ElideMiddle,
                                                                                          LABEL_W - 8))
            for c in range(len(self.columns)):
                rect = self.cell_rect(r, c)
                colour = QColor(delta_colour(self.cells[r][c], LIMIT))
                painter.fillRect(rect, colour)
                painter.setPen(text_on(colour) if self.cells[r][c] is not None else QColor("#555555"))
                painter.drawText(rect, Qt.AlignCenter, self.text_of(r, c))
        if self.chosen is not None:
            painter.setPen(QPen(ink, 2))
            painter.setBrush(Qt.NoBrush)
            painter.drawRect(self.cell_rect(*self.chosen).adjusted(-1, -1, 1, 1))
        self._legend(painter, QPointF(o.x(), o.y() + len(self.names) * CELL_H + 12), ink)
        painter.end()

    def _legend(self, painter: QPainter, at: QPointF, ink: QColor) -> None:
        width = max(160.0, min(260.0, CELL_W * len(self.columns)))
        bar = QRectF(at.x(), at.y(), width, 10)
        gradient = QLinearGradient(bar.topLeft(), bar.topRight())
        for stop in range(0, 11):
            value = -LIMIT + 2 * LIMIT * stop / 10
            gradient.setColorAt(stop / 10, QColor(delta_colour(value, LIMIT)))
        painter.fillRect(bar, gradient)
        painter.setPen(ink)
        for text, x, align in ((f"−{int(LIMIT * 100)}", bar.left(), Qt.AlignLeft),
                               ("0", bar.center().x() - 20, Qt.AlignHCenter),
                               (f"+{int(LIMIT * 100)} points", bar.right() - 80, Qt.AlignRight)):
            painter.drawText(QRectF(x, bar.bottom() + 2, 80 if align != Qt.AlignHCenter else 40, 16), align, text)
        na = QRectF(at.x() - LABEL_W + 8, at.y(), 24, 10)
        painter.fillRect(na, QColor(delta_colour(None)))
        painter.drawText(QRectF(na.right() + 4, na.top() - 3, 120, 16), Qt.AlignLeft | Qt.AlignVCenter, "not run")

    # choosing ------------------------------------------------------------------------------------
    def choose(self, row: int, column: int) -> None:
        if 0 <= row < len(self.names) and 0 <= column < len(self.columns):
            self.chosen = (row, column)
            self.update()
            self.cellChosen.emit(self.names[row], column)

    def mousePressEvent(self, event) -> None:
        found = self.cell_at(event.position())
        if found is not None and event.button() == Qt.LeftButton:
            self.setFocus()
            self.choose(*found)

    def keyPressEvent(self, event) -> None:
        moves = {Qt.Key_Up: (-1, 0), Qt.Key_Down: (1, 0), Qt.Key_Left: (0, -1), Qt.Key_Right: (0, 1)}
        if event.key() in moves and self.names:
            dr, dc = moves[event.key()]
            row, column = self.chosen or (0, 0)
            self.choose(min(max(row + dr, 0), len(self.names) - 1), min(max(column + dc, 0), len(self.columns) - 1))
        else:
            super().keyPressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        found = self.cell_at(event.position())
        if found is None:
            QToolTip.hideText()
            return
        r, c = found
        QToolTip.showText(event.globalPosition().toPoint(), f"{self.names[r]}\n{self.columns[c]}\n"
                          f"{self.text_of(*found)} points", self)
