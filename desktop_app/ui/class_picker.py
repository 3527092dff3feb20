"""The class picker (key C, label.class in ui/shortcuts.py): a small popup over the canvas listing the project's
classes numbered in vocabulary order, with a line to type in, as CVAT's and labelme's label pickers.

Any class in three keys at most, with 80 classes: C, then its number; the number is applied as soon as no
other class number begins with the digits typed (C 3 7 is class 37, since 370 is beyond 80; C 8 waits, since
80 exists, and Enter takes 8). A name is typed and Enter takes the highlighted class (case-insensitive, those
beginning with what was typed first). 0 or "(no class)" clears the class; Esc closes, as does clicking
elsewhere.

    picker = ClassPicker(view)          # a child of the canvas view: drawn over it, in its window's picture
    picker.chosen.connect(apply)        # a class name, "" for none
    picker.open_with(classes, current)  # current: the selected box's class, highlighted

What is decided from the typed text (`matches`, `decided`) is plain Python, tested without a window.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFrame,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.shortcuts import key_name, pressed

NONE = "(no class)"
WIDTH, ROWS = 300, 10  # pixels wide; list rows shown before it scrolls
# the picker's keys (ui/shortcuts.py, group "Class picker"), kept while its line has the focus: the window
# binds some of them too (Esc: stop drawing; Enter: accept suggestions; arrows: nudge the box), and here they
# move in the list or close it. picker.none (0) is typed: a number like any other.
MOVES = {"picker.up": -1, "picker.down": 1, "picker.page_up": -ROWS, "picker.page_down": ROWS}
KEPT = ("picker.take", "picker.close", *MOVES)


def matches(classes: tuple[str, ...], typed: str) -> list[tuple[int, str]]:
    """(number, name) of what the picker lists for `typed`, in order; number 0 is "no class".

    Nothing typed: no class, then every class. Digits: the classes whose number begins with them, then the
    names holding them. Otherwise the names holding the text, any case: those beginning with it first, each
    part in vocabulary order."""
    every = list(enumerate(classes, start=1))
    text = typed.strip()
    if not text:
        return [(0, NONE), *every]
    by_number: list[tuple[int, str]] = []
    if text.isdigit():
        if text == "0":
            return [(0, NONE)]
        by_number = [(n, name) for n, name in every if str(n).startswith(text)]
    low = text.lower()
    begins = [(n, name) for n, name in every if name.lower().startswith(low) and (n, name) not in by_number]
    holds = [(n, name) for n, name in every if low in name.lower()[1:] and (n, name) not in by_number + begins]
    none = [(0, NONE)] if low in NONE or low in ("none", "no") else []
    return by_number + begins + holds + none


def decided(classes: tuple[str, ...], typed: str) -> int | None:
    """The class number the typed digits name once no other number begins with them (so the picker applies it
    without Enter): "37" of 80 classes is 37, "3" is not yet (30-39 exist), "8" not (80 does). "0": no class.
    None when undecided, or when the text is not a number of this vocabulary."""
    text = typed.strip()
    if not text.isdigit():
        return None
    if text == "0":
        return 0
    number = int(text)
    if text.startswith("0") or not 1 <= number <= len(classes):
        return None
    return number if number * 10 > len(classes) else None


class ClassPicker(QFrame):
    """A popup over the canvas: a filter line over the numbered classes. chosen(name) when one is taken ("" for
    no class), then it closes; closed() whichever way it closed."""

    chosen = Signal(str)
    closed = Signal()

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.setObjectName("classPicker")
        self.setFrameShape(QFrame.StyledPanel)
        self.setAutoFillBackground(True)
        self.classes: tuple[str, ...] = ()
        self._current = ""  # the selected box's class, highlighted when nothing is typed
        self.title = QLabel("Class of the selected box")
        self.title.setStyleSheet("font-weight: bold")
        self.line = QLineEdit(placeholderText="type a name or a number")
        self.line.setClearButtonEnabled(True)
        self.line.installEventFilter(self)
        self.line.textChanged.connect(self._typed)
        self.list = QListWidget()
        self.list.setFocusPolicy(Qt.NoFocus)  # the keys stay in the line; the list is pointed at
        self.list.setUniformItemSizes(True)
        self.list.itemClicked.connect(lambda item: self._take(item.data(Qt.UserRole)))
        self.hint = QLabel(wordWrap=True)
        self.hint.setStyleSheet("color: gray")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(4)
        for widget in (self.title, self.line, self.list, self.hint):
            layout.addWidget(widget)
        self.hide()
        QApplication.instance().focusChanged.connect(self._focus_moved)

    # opening and closing ----------------------------------------------------------------------------------
    def open_with(self, classes: tuple[str, ...], current: str = "", anchor: QPoint | None = None) -> None:
        """Show the classes, `current` highlighted, near `anchor` (a point of the parent; its top middle when
        None), inside the parent."""
        self.classes = tuple(classes)
        self._current = current
        self.line.setPlaceholderText(f"type a name, or a number 1-{len(self.classes)}")
        self.line.blockSignals(True)
        self.line.clear()
        self.line.blockSignals(False)
        self._fill("")
        self._place(anchor)
        self.show()
        self.raise_()
        self.line.setFocus(Qt.PopupFocusReason)

    def _place(self, anchor: QPoint | None) -> None:
        parent = self.parentWidget()
        rows = min(ROWS, self.list.count())
        self.list.setFixedHeight(self.list.sizeHintForRow(0) * rows + 2 * self.list.frameWidth() + 2)
        self.setFixedWidth(min(WIDTH, max(parent.width() - 8, 160)))
        self.adjustSize()
        room = parent.rect().adjusted(4, 4, -4, -4)
        at = anchor if anchor is not None else QPoint(room.center().x() - self.width() // 2, room.top() + 24)
        x = min(max(at.x(), room.left()), room.right() - self.width())
        y = min(max(at.y(), room.top()), room.bottom() - self.height())
        self.move(x, y)

    def close_picker(self) -> None:
        if self.isVisible():
            self.hide()
            self.closed.emit()

    def _focus_moved(self, _old, new) -> None:
        """Clicking or tabbing elsewhere closes it, as a menu."""
        if self.isVisible() and (new is None or not self.isAncestorOf(new)):
            self.close_picker()

    # typing -----------------------------------------------------------------------------------------------
    def _typed(self, text: str) -> None:
        number = decided(self.classes, text)
        if number is not None:
            self._take(self.classes[number - 1] if number else "")
            return
        self._fill(text)

    def _fill(self, text: str) -> None:
        self.list.clear()
        found = matches(self.classes, text)
        for number, name in found:
            item = QListWidgetItem(f"{number:>3}   {name}" if number else f"  0   {name}")
            item.setData(Qt.UserRole, name if number else "")
            item.setToolTip(name)
            self.list.addItem(item)
        current = next((row for row, (n, name) in enumerate(found) if n and name == self._current), None)
        self.list.setCurrentRow(current if current is not None and not text.strip() else 0 if found else -1)
        if self.list.currentItem() is not None:
            self.list.scrollToItem(self.list.currentItem(), QAbstractItemView.PositionAtCenter)
        if found:
            self.hint.setText(f"{key_name('picker.take')}: the highlighted class · {key_name('picker.close')} "
                              "closes")
        else:
            self.hint.setText("No class matches: Edit > Classes of this project… adds one")

    def _take(self, name: str) -> None:
        self.hide()
        self.chosen.emit(name)
        self.closed.emit()

    def eventFilter(self, watched, event) -> bool:
        if watched is self.line and event.type() in (QEvent.ShortcutOverride, QEvent.KeyPress):
            action = next((a for a in KEPT if pressed(event, a)), None)
            if action is not None:
                if event.type() == QEvent.ShortcutOverride:
                    event.accept()  # the window's shortcut for this key does not fire: the key press comes here
                else:
                    self._key(action)
                return True
        return super().eventFilter(watched, event)

    def _key(self, action: str) -> None:
        if action == "picker.close":
            self.close_picker()
        elif action == "picker.take":
            item = self.list.currentItem()
            if item is not None:
                self._take(item.data(Qt.UserRole))
        elif self.list.count():
            row = self.list.currentRow() + MOVES[action]
            self.list.setCurrentRow(min(max(row, 0), self.list.count() - 1))

    def shown_rows(self) -> list[str]:
        """The list's rows as shown (for tests and the status bar)."""
        return [self.list.item(row).text() for row in range(self.list.count())]

