"""The visible runs' answers for the current step, as text: one card per run with its colour,
agent and pattern, verdict, the parsed action (type, point, element, typed text), latency, and
the raw answer (read-only, monospace, selectable - what the model really said).

    panel.show_predictions(step_prediction_rows(project, step_id, runs_panel.visible_runs()))

Rows may come from report.prediction_rows() too; missing keys show as empty. Any text a model
produced is shown as plain text, never interpreted as rich text.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFontDatabase
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.eval.colours import run_colour, text_on
from desktop_app.ui.palette import label_color

RAW_LINES = 6  # the raw answer box shows this many lines before it scrolls
SHOWN_KEYS = ("run", "agent", "pattern", "verdict", "wrong_format", "action_type", "point", "element", "text",
              "latency_ms", "error", "raw", "matched_box")


def _plain(label: QLabel) -> QLabel:
    label.setTextFormat(Qt.PlainText)  # model output is data, never markup
    label.setTextInteractionFlags(Qt.TextSelectableByMouse)
    label.setWordWrap(True)
    return label


def verdict_colour(verdict: str, wrong_format: bool) -> QColor:
    if verdict in ("gold", "distracted", "other"):
        return label_color(verdict)
    return QColor("#6b4fa0") if wrong_format else QColor("#555555")


class PredictionCard(QFrame):
    clicked = Signal(int)  # run id

    def __init__(self, row: dict, colour: QColor, parent=None):
        super().__init__(parent)
        self.row = row
        self.setFrameShape(QFrame.StyledPanel)
        self.setObjectName("predictionCard")
        self.setStyleSheet(f"#predictionCard {{ border-left: 5px solid {colour.name()}; }}")
        verdict = row.get("verdict") or ""
        wrong = bool(row.get("wrong_format"))
        shown = "wrong format" if wrong else {"error": "no answer", "": "not scored"}.get(verdict, verdict)
        title = _plain(QLabel(f"#{row.get('run', '?')}  {row.get('agent', '')} / {row.get('pattern', '')}"))
        title.setStyleSheet("font-weight: bold")
        badge = QLabel(shown)
        badge.setTextFormat(Qt.PlainText)
        vc = verdict_colour(verdict, wrong)
        badge.setStyleSheet(f"background: {vc.name()}; color: {text_on(vc).name()}; border-radius: 3px;"
                            " padding: 1px 6px; font-weight: bold")
        badge.setObjectName("verdictBadge")
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(title, 1)
        head.addWidget(badge, 0, Qt.AlignTop)

        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        point = row.get("point")
        point_text = f"({point[0]:.0f}, {point[1]:.0f})" if point and None not in point else "—"
        latency = row.get("latency_ms")
        values = [("Action", row.get("action_type") or "—"), ("Point", point_text),
                  ("Element", row.get("element") or "—")]
        if row.get("text"):
            values.append(("Text", row["text"]))
        if row.get("asked") is not None or row.get("user_answer"):  # an episode step where the agent asked first
            values.append(("Asked", row.get("asked") or "(no question)"))
            values.append(("User said", row.get("user_answer") or "—"))
        values.append(("Latency", f"{latency:.0f} ms" if latency else "—"))
        if row.get("error"):
            values.append(("Error", row["error"]))
        self.fields: dict[str, QLabel] = {}
        for name, value in values:
            label = _plain(QLabel(str(value)))
            self.fields[name] = label
            form.addRow(name, label)
        self.raw = QPlainTextEdit(row.get("raw") or "")
        self.raw.setReadOnly(True)
        self.raw.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
        self.raw.setTextInteractionFlags(Qt.TextSelectableByMouse | Qt.TextSelectableByKeyboard)
        line = self.raw.fontMetrics().lineSpacing()
        self.raw.setMaximumHeight(int(line * RAW_LINES + 12))
        self.raw.setPlaceholderText("(empty answer)")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 6, 6)
        layout.addLayout(head)
        layout.addLayout(form)
        layout.addWidget(self.raw)

    def mousePressEvent(self, event) -> None:
        self.clicked.emit(int(self.row.get("run") or 0))
        super().mousePressEvent(event)


class PredictionPanel(QWidget):
    """cardClicked(int run_id) is emitted when a card is clicked (e.g. to highlight its marker)."""

    cardClicked = Signal(int)

    def __init__(self, parent=None, colour_of: Callable[[int], QColor] = run_colour):
        super().__init__(parent)
        self.colour_of = colour_of
        self._rows: list[dict] = []
        self.cards: list[PredictionCard] = []
        self.empty = QLabel("No predictions for this step in the visible runs.")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        self.inner = QWidget()
        self.inner_layout = QVBoxLayout(self.inner)
        self.inner_layout.setContentsMargins(4, 4, 4, 4)
        self.inner_layout.addWidget(self.empty)
        self.inner_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.inner)
        scroll.setFrameShape(QFrame.NoFrame)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scroll)

    def show_predictions(self, rows: list[dict]) -> None:
        """One card per row (run), replacing what was shown; unchanged rows keep their cards
        (streaming refreshes arrive up to 10 times a second)."""
        slim = [{k: r.get(k) for k in SHOWN_KEYS} for r in rows]
        if slim == self._rows:
            return
        self._rows = slim
        for card in self.cards:
            self.inner_layout.removeWidget(card)
            card.deleteLater()
        self.cards = []
        for i, row in enumerate(slim):
            card = PredictionCard(row, self.colour_of(int(row.get("run") or 0)))
            card.clicked.connect(self.cardClicked)
            self.inner_layout.insertWidget(1 + i, card)
            self.cards.append(card)
        self.empty.setVisible(not slim)

    def clear(self) -> None:
        self.show_predictions([])

    def rows(self) -> list[dict]:
        return list(self._rows)
