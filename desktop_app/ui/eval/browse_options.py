"""The New run dialog's options of the `browse` protocol (page variants, VAF): trials per variant, the step
cap, how many earlier viewports the agent sees, sampling, and the model that judges mentions (TMR).
Defaults are the protocol's (runs/protocols/browse.py: the paper's 50 trials, temperature 1.0, top-p 0.8)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QGridLayout, QGroupBox, QLabel, QSpinBox

from desktop_app.runs.protocols.browse import BrowseOptions

DEFAULTS = BrowseOptions()


class BrowseOptionsBox(QGroupBox):
    changed = Signal()

    def __init__(self, parent=None):
        super().__init__("Browsing (page variants)", parent)
        self.setToolTip("Options of the browsing protocol: an agent scrolls each variant until it clicks an item")
        self.trials = self._spin(1, 10_000, DEFAULTS.trials, "trials per variant (the paper: 50)")
        self.max_steps = self._spin(1, 100, DEFAULTS.max_steps, "answers per trial before it ends unclicked")
        self.history = self._spin(0, 20, DEFAULTS.history, "earlier viewports shown as pictures (older ones "
                                                            "are told as text)")
        self.temperature = self._real(0.0, 2.0, 0.1, DEFAULTS.temperature, "sampling temperature (the paper: 1.0)")
        self.top_p = self._real(0.01, 1.0, 0.05, DEFAULTS.top_p, "nucleus sampling (the paper: 0.8)")
        self.judge = QComboBox()
        self.judge.addItem("none (no TMR)", "")
        self.judge.setToolTip("The model that reads each trial's thoughts and says whether they mention the target")
        self.judge.currentIndexChanged.connect(lambda _i: self.changed.emit())
        grid = QGridLayout(self)
        for i, (label, widget) in enumerate((("Trials", self.trials), ("Max steps", self.max_steps),
                                             ("History", self.history), ("Temperature", self.temperature),
                                             ("Top-p", self.top_p))):
            grid.addWidget(QLabel(label), i // 3, 2 * (i % 3))
            grid.addWidget(widget, i // 3, 2 * (i % 3) + 1)
        grid.addWidget(QLabel("Judge"), 2, 0)
        grid.addWidget(self.judge, 2, 1, 1, 5)

    def _spin(self, low: int, high: int, value: int, tip: str) -> QSpinBox:
        box = QSpinBox()
        box.setRange(low, high)
        box.setValue(value)
        box.setToolTip(tip)
        box.valueChanged.connect(lambda _v: self.changed.emit())
        return box

    def _real(self, low: float, high: float, step: float, value: float, tip: str) -> QDoubleSpinBox:
        box = QDoubleSpinBox()
        box.setRange(low, high)
        box.setSingleStep(step)
        box.setDecimals(2)
        box.setValue(value)
        box.setToolTip(tip)
        box.valueChanged.connect(lambda _v: self.changed.emit())
        return box

    def set_judges(self, names: list[str]) -> None:
        """The saved model profiles a judge can be (the one chosen stays chosen)."""
        chosen = self.judge.currentData()
        self.judge.blockSignals(True)
        self.judge.clear()
        self.judge.addItem("none (no TMR)", "")
        for name in names:
            self.judge.addItem(name, name)
        self.judge.setCurrentIndex(max(0, self.judge.findData(chosen)))
        self.judge.blockSignals(False)

    def set_judge(self, name: str) -> None:
        self.judge.setCurrentIndex(max(0, self.judge.findData(name)))

    def options(self) -> dict:
        return {"trials": self.trials.value(), "max_steps": self.max_steps.value(), "history": self.history.value(),
                "temperature": round(self.temperature.value(), 2), "top_p": round(self.top_p.value(), 2),
                "judge": self.judge.currentData() or ""}
