"""The properties panel: the episode's goal and scenario, the selected box's fields,
and the list of this screen's actions (including text-only ones without a box)."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app.api.boxes import ACTION_TYPES, LABELS, box_attributes, classes, with_attributes
from desktop_app.api.teams import skip_note
from desktop_app.ui.class_combo import ClassCombo
from desktop_app.ui.fit import ElidedLabel, fit_combo
from desktop_app.ui.palette import label_color
from desktop_app.ui.shortcuts import key_name, pressed
from desktop_app.ui.workspace import Workspace


class GoalEdit(QPlainTextEdit):
    """Commits when typing pauses (PAUSE_MS), when focus leaves, or on Ctrl+Enter (goal.commit in
    ui/shortcuts.py; an edit is taken back with Ctrl+Z like any other). The pause commit is what keeps typed text when the program is killed before focus ever leaves
    (the status bar said "saved" while the text lived only in the widget)."""

    committed = Signal(str)
    PAUSE_MS = 600

    def __init__(self):
        super().__init__()
        self.setTabChangesFocus(True)
        self.setMaximumHeight(90)
        self.setPlaceholderText("The user's goal for this episode")
        self._pause = QTimer(self, singleShot=True, interval=self.PAUSE_MS)
        self._pause.timeout.connect(lambda: self.committed.emit(self.toPlainText()))
        self.textChanged.connect(lambda: self._pause.start() if self.hasFocus() else None)

    def keyPressEvent(self, event) -> None:
        if pressed(event, "goal.commit"):
            self.committed.emit(self.toPlainText())
            return
        super().keyPressEvent(event)

    def focusOutEvent(self, event) -> None:
        self._pause.stop()
        self.committed.emit(self.toPlainText())
        super().focusOutEvent(event)


class PropertiesPanel(QWidget):
    boxesSelected = Signal(list)  # box ids chosen in the list

    def __init__(self, ws: Workspace, palette: str = "default", parent=None):
        super().__init__(parent)
        self.setObjectName("properties")
        self.ws = ws
        self.palette = palette
        self._selected: list[int] = []
        self._syncing = False

        self.key = ElidedLabel()  # a SHA-256 file name as id: cut in the middle, whole in the tooltip
        self.key.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.goal = GoalEdit()
        self.scenario = fit_combo(QComboBox(editable=True))
        self.scenario.addItems(["popup", "search", "recommendation", "chat"])
        self.status = QLabel()
        episode_box = QGroupBox("Episode")
        form = QFormLayout(episode_box)
        form.addRow("Id", self.key)
        form.addRow("Goal", self.goal)
        form.addRow("Scenario", self.scenario)
        form.addRow("Review", self.status)
        # why the screen was skipped (Team > Skip): kept with it, and shown while it is open
        self.skip_note = QLabel(wordWrap=True, textFormat=Qt.PlainText)
        form.addRow(self.skip_note)
        self.skip_note.hide()

        self.label = fit_combo(QComboBox())  # the role: what scoring reads (keys 1-3)
        for label in LABELS:
            self.label.addItem(self._swatch(label), label, label)
        self.label.setToolTip("The box's role, what every protocol scores")
        self.category = fit_combo(ClassCombo())  # a class may be long: the box never widens the panel for it
        self.category.setToolTip(f"The box's class, from the project's (Edit > Classes of this project…): type "
                                 f"to search; keys {key_name('label.4')}-{key_name('label.9')} and "
                                 f"{key_name('label.class')} on the canvas")
        self.reload_classes()
        self.action = fit_combo(QComboBox())
        self.action.addItems(list(ACTION_TYPES))
        self.element_text = QLineEdit(placeholderText="visible text of the element")
        self.type_text = QLineEdit(placeholderText="text to type (type actions)")
        self.box_info = QLabel(wordWrap=True)  # "… by <a long login> · v3" wraps rather than widen the panel
        self.box_info.setStyleSheet("color: gray")
        # free key-value attributes of one box; the last row is empty for a new one
        self.attributes = QTableWidget(0, 2)
        self.attributes.setHorizontalHeaderLabels(["Attribute", "Value"])
        self.attributes.verticalHeader().hide()
        self.attributes.horizontalHeader().setSectionResizeMode(1, QHeaderView.Stretch)
        self.attributes.setMaximumHeight(110)
        self.attributes.setToolTip("Type a name and a value in the last row to add one; clear a value to remove it")
        box_box = QGroupBox("Selected action")
        form = QFormLayout(box_box)
        form.addRow("Role", self.label)
        form.addRow("Class", self.category)
        form.addRow("Action", self.action)
        form.addRow("Element text", self.element_text)
        form.addRow("Text to type", self.type_text)
        form.addRow("Attributes", self.attributes)
        form.addRow(self.box_info)
        self.box_group = box_box

        self.list = QListWidget()
        self.list.setSelectionMode(QAbstractItemView.ExtendedSelection)
        # a long element text is elided in the middle (its size stays in view), whole in the row's tooltip
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.list.setTextElideMode(Qt.ElideMiddle)
        list_box = QGroupBox("Actions on this screen")
        QVBoxLayout(list_box).addWidget(self.list)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(episode_box)
        layout.addWidget(box_box)
        layout.addWidget(list_box, 1)
        self.buttons = QHBoxLayout()  # the window's buttons for this screen (ui/team_menu.py: Done, next unlabelled)
        layout.addLayout(self.buttons)

        self.goal.committed.connect(self._commit_goal)
        self.scenario.activated.connect(self._commit_scenario)
        self.scenario.lineEdit().editingFinished.connect(self._commit_scenario)
        self.label.activated.connect(lambda index: self._commit_boxes({"label": self.label.itemData(index)}, "Set role"))
        self.category.chosen.connect(
            lambda name: self._commit_boxes({"category": name}, f"Class {name}" if name else "Clear class"))
        self.category.refused.connect(lambda typed: self.box_info.setText(
            f"<span style='color:#d9534f'>No class '{html.escape(typed)}' in this project (Edit > Classes of this "
            "project… adds one)</span>"))
        self.action.activated.connect(
            lambda _=None: self._commit_boxes({"action_type": self.action.currentText()}, "Set action type"))
        self.element_text.editingFinished.connect(
            lambda: self._commit_boxes({"element_text": self.element_text.text()}, "Edit element text"))
        self.type_text.editingFinished.connect(
            lambda: self._commit_boxes({"type_text": self.type_text.text()}, "Edit text to type"))
        self.list.itemSelectionChanged.connect(self._list_selection)
        self.attributes.itemChanged.connect(lambda _item: self._commit_attributes())

        ws.stepLoaded.connect(self.refresh)
        ws.boxesPut.connect(lambda *_: self.refresh_boxes())
        ws.boxesRemoved.connect(lambda *_: self.refresh_boxes())
        ws.episodeChanged.connect(lambda *_: self.refresh_episode())
        ws.stateChanged.connect(lambda *_: self.show_skipped())
        self.refresh()

    def reload_classes(self) -> None:
        """The project's classes (store/label_set.py), after Edit > Classes of this project changed them."""
        self.category.set_classes(classes(self.ws.project))

    def _swatch(self, label: str) -> QIcon:
        pixmap = QPixmap(12, 12)
        pixmap.fill(label_color(label, self.palette))
        return QIcon(pixmap)

    @property
    def selected(self) -> list[int]:
        """The actions selected here or on the canvas (text-only ones exist only in this list)."""
        return list(self._selected)

    # showing ----------------------------------------------------------------
    def refresh(self) -> None:
        self.refresh_episode()
        self.refresh_boxes()

    def refresh_episode(self) -> None:
        episode = self.ws.episode
        self.setEnabled(episode is not None)
        if episode is None:
            self.key.clear()
            self.goal.setPlainText("")
            return
        self.key.setText(episode.key)
        if self.goal.toPlainText() != episode.goal:
            self.goal.setPlainText(episode.goal)
        self.scenario.setCurrentText(episode.scenario)
        self.scenario.lineEdit().setCursorPosition(0)  # a long scenario shows its start, not its end
        self.status.setText(episode.review_status)
        self.show_skipped()

    def show_skipped(self) -> None:
        note = skip_note(self.ws.skipped) if self.ws.episode is not None else ""
        self.skip_note.setText(f"⊘ {note}")
        self.skip_note.setToolTip(note)
        self.skip_note.setVisible(bool(note))

    def refresh_boxes(self) -> None:
        self._syncing = True
        self.list.clear()
        for box in self.ws.boxes.values():
            where = "(no box)" if box.x1 is None else f"{box.x2 - box.x1:.0f}x{box.y2 - box.y1:.0f}"
            named = " · ".join(part for part in (box.category, box.element_text) if part) or "(no text)"
            item = QListWidgetItem(self._swatch(box.label), f"{named}  [{where}]")
            item.setToolTip(item.text())
            item.setData(Qt.UserRole, box.id)
            if box.x1 is None:
                item.setForeground(QColor("gray"))
            self.list.addItem(item)
            item.setSelected(box.id in self._selected)
        self._syncing = False
        self.show_selection(self._selected)

    def show_selection(self, ids: list[int]) -> None:
        self._selected = [i for i in ids if i in self.ws.boxes]
        self._syncing = True
        for row in range(self.list.count()):
            item = self.list.item(row)
            item.setSelected(item.data(Qt.UserRole) in self._selected)
        self._syncing = False
        boxes = [self.ws.boxes[i] for i in self._selected]
        self.box_group.setEnabled(bool(boxes))
        single = boxes[0] if len(boxes) == 1 else None
        for widget in (self.element_text, self.type_text, self.attributes):
            widget.setEnabled(single is not None)
        self._show_attributes(single)
        if not boxes:
            self.box_info.setText(f"Select a box, or press {key_name('edit.draw')} and drag to draw one")
            self.element_text.clear()
            self.type_text.clear()
            return
        first = boxes[0]
        self.label.setCurrentIndex(self.label.findData(first.label))
        self.category.show_class(first.category)
        self.action.setCurrentText(first.action_type)
        if single is not None:
            self.element_text.setText(single.element_text)
            self.type_text.setText(single.type_text)
            geometry = ("no box" if single.x1 is None else
                        f"({single.x1:.0f}, {single.y1:.0f}) - ({single.x2:.0f}, {single.y2:.0f})")
            self.box_info.setText(f"{geometry} · {single.source} · by {single.author or '?'} · v{single.version}")
        else:
            self.element_text.clear()
            self.type_text.clear()
            self.box_info.setText(f"{len(boxes)} actions selected")

    def _show_attributes(self, box) -> None:
        self._syncing = True
        shown = box_attributes(box) if box is not None else {}
        self.attributes.setRowCount(len(shown) + (1 if box is not None else 0))
        for row, (name, value) in enumerate([*shown.items(), ("", "")][:self.attributes.rowCount()]):
            self.attributes.setItem(row, 0, QTableWidgetItem(name))
            self.attributes.setItem(row, 1, QTableWidgetItem(value))
        self._syncing = False

    # committing -------------------------------------------------------------
    def _commit_attributes(self) -> None:
        if self._syncing or len(self._selected) != 1:
            return
        box = self.ws.boxes[self._selected[0]]
        typed = {}
        for row in range(self.attributes.rowCount()):
            name, value = (self.attributes.item(row, c) for c in (0, 1))
            if name is not None and name.text().strip():
                typed[name.text().strip()] = value.text() if value is not None else ""
        if typed and not any(typed.values()) and not box_attributes(box):
            return  # a name typed, its value not yet
        changes = {**{k: None for k in box_attributes(box) if k not in typed}, **typed}
        try:
            meta = with_attributes(box.meta, changes)
        except ValueError as exc:
            self.box_info.setText(f"<span style='color:#d9534f'>{exc}</span>")
            return
        if meta != (box.meta or {}):
            self.ws.change_boxes({box.id: {"meta": meta}}, "Set attributes")

    def _commit_goal(self, text: str) -> None:
        if self.ws.episode is not None and text != self.ws.episode.goal:
            self.ws.edit_episode({"goal": text}, "Edit goal")

    def _commit_scenario(self) -> None:
        text = self.scenario.currentText().strip()
        if self.ws.episode is not None and text != self.ws.episode.scenario:
            self.ws.edit_episode({"scenario": text}, "Set scenario")

    def _commit_boxes(self, values: dict, text: str) -> None:
        ids = self._selected if {"label", "category", "action_type"} & set(values) else self._selected[:1]
        if ids:
            self.ws.change_boxes({i: dict(values) for i in ids}, text)

    def _list_selection(self) -> None:
        if self._syncing:
            return
        ids = [item.data(Qt.UserRole) for item in self.list.selectedItems()]
        self._selected = ids
        self.show_selection(ids)
        self.boxesSelected.emit(ids)
