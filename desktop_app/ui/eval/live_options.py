"""The New run dialog's options of the `live` protocol (recorded tasks done in a browser): the step cap, and
whether tasks recorded on a web page may run. What the agent sees is the dialog's "Agent sees" choice.
Defaults are the protocol's (runs/protocols/live.py)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QGridLayout, QGroupBox, QLabel, QSpinBox

from desktop_app.runs.protocols.live import LiveOptions

DEFAULTS = LiveOptions()


class LiveOptionsBox(QGroupBox):
    changed = Signal()

    def __init__(self, parent=None):
        super().__init__("Live (recorded tasks in a browser)", parent)
        self.setToolTip("Options of the live protocol: the agent does each recorded task on the live page")
        self.max_steps = QSpinBox()
        self.max_steps.setRange(1, 200)
        self.max_steps.setValue(DEFAULTS.max_steps)
        self.max_steps.setToolTip("actions per task before it ends unfinished")
        self.max_steps.valueChanged.connect(lambda _v: self.changed.emit())
        self.allow_web = QCheckBox("Also tasks recorded on the web")
        self.allow_web.setChecked(DEFAULTS.allow_web)
        self.allow_web.setToolTip("Off: only the project's pages run, served offline with every outside request "
                                  "blocked. On: a task recorded on a web page runs there, and its requests leave "
                                  "this machine")
        self.allow_web.toggled.connect(lambda _v: self.changed.emit())
        grid = QGridLayout(self)
        grid.addWidget(QLabel("Step cap"), 0, 0)
        grid.addWidget(self.max_steps, 0, 1)
        grid.addWidget(self.allow_web, 1, 0, 1, 2)

    def options(self) -> dict:
        return {"max_steps": self.max_steps.value(), "allow_web": self.allow_web.isChecked()}
