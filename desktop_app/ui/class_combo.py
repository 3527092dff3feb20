"""The Properties panel's Class box: a combo box of the project's classes, "(none)" first, that can be typed in
and searched (any part of a name, any case, in a list under it) as 80 COCO classes need.

Names keep their case ("Car" and "car" are two classes), so Enter on typed text takes the class spelled so,
else the only one that matches in another case; QComboBox's own Enter would take the first that matches in any
case. Text naming no class is refused (`refused`), and the box shows the class again.

    combo = ClassCombo()
    combo.set_classes(api.classes(project))
    combo.show_class("Car")              # the selected box's ("" for none)
    combo.chosen.connect(commit)         # a class name, "" for none
    combo.refused.connect(say)           # what was typed, when it names no class
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QComboBox, QCompleter

NONE = "(none)"


def resolve(classes: tuple[str, ...], typed: str) -> str | None:
    """The class a typed name means: spelled so, else the only one equal to it in another case; "" for "(none)"
    or nothing typed; None when it names none (or two, "CAR" of "Car" and "car")."""
    text = typed.strip()
    if text in ("", NONE):
        return ""
    if text in classes:
        return text
    same = [name for name in classes if name.casefold() == text.casefold()]
    return same[0] if len(same) == 1 else None


class ClassCombo(QComboBox):
    chosen = Signal(str)
    refused = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.NoInsert)  # typing never adds a class: Edit > Classes does
        self.setMaxVisibleItems(15)
        completer = QCompleter(self)
        completer.setCaseSensitivity(Qt.CaseInsensitive)
        completer.setFilterMode(Qt.MatchContains)  # "ball" finds "sports ball"
        completer.setCompletionMode(QCompleter.PopupCompletion)
        self.setCompleter(completer)
        self.lineEdit().setPlaceholderText(NONE)
        self.lineEdit().installEventFilter(self)
        self.activated.connect(lambda index: self._choose(self.itemData(index) or ""))
        self.lineEdit().editingFinished.connect(self._typed)
        self.classes: tuple[str, ...] = ()
        self._shown = ""

    def set_classes(self, classes: tuple[str, ...]) -> None:
        self.classes = tuple(classes)
        self.blockSignals(True)
        self.clear()
        self.addItem(NONE, "")
        for name in self.classes:
            self.addItem(name, name)
            self.setItemData(self.count() - 1, name, Qt.ToolTipRole)
        self.blockSignals(False)
        self.show_class(self._shown)

    def show_class(self, name: str) -> None:
        """Show a box's class (one the vocabulary no longer has is shown as it is)."""
        self._shown = name
        index = self.findData(name) if name else 0
        self.blockSignals(True)
        if index >= 0:
            self.setCurrentIndex(index)
        self.setEditText(name or NONE)
        self.lineEdit().setCursorPosition(0)  # a long name shows its start
        self.blockSignals(False)

    def current_class(self) -> str:
        return self._shown

    def _choose(self, name: str) -> None:
        self.show_class(name)
        self.chosen.emit(name)

    def _typed(self) -> None:
        typed = self.currentText()
        if typed == (self._shown or NONE):
            return
        found = resolve(self.classes, typed)
        if found is None:
            self.show_class(self._shown)
            self.refused.emit(typed.strip())
        elif found != self._shown:
            self._choose(found)
        else:
            self.show_class(found)

    def eventFilter(self, watched, event) -> bool:
        # Enter is resolved here (case first), before QComboBox takes the first match in any case
        if watched is self.lineEdit() and event.type() == QEvent.KeyPress and event.key() in (Qt.Key_Return,
                                                                                                Qt.Key_Enter):
            popup = self.completer().popup()
            if popup.isVisible() and popup.currentIndex().isValid():
                return False  # a row of the completer's list highlighted: it takes that row, exactly
            popup.hide()
            self._typed()
            return True
        return super().eventFilter(watched, event)
