"""Widgets that give way, so a window fits a laptop's screen whatever the data's names (ADR 0035).

A QLabel is as wide as its text and a QComboBox as wide as its longest item, at least: one SHA-256 file name,
annotator or run name in either, and the window could not be made narrower than that name. Here:

    ElidedLabel(text)          one line: all of it when there is room, else "abc…xyz" with the whole in its tooltip
    fit_combo(combo, chars)    as narrow as `chars` characters; the current text whole in its tooltip when cut
                               (the open list is as wide as its items: the Fusion style widens it)
    ElidedGroupBox(title)      a group box whose title is cut to its width, whole in its tooltip
    CurrentPageStack           a QStackedWidget sized by the page shown, not by the largest hidden one
    CurrentPageTabs            the same for a QTabWidget
    scrolled(widget)           a panel taller (or wider) than the room it may get, in a scroll area
    open_at(window, w, h)      a window's first size, or its screen's room when that is smaller
    FlowLayout                 a row of buttons that wraps onto more lines in a narrow panel
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QSize, Qt
from PySide6.QtGui import QGuiApplication, QPainter
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGroupBox,
    QLabel,
    QLayout,
    QScrollArea,
    QStackedWidget,
    QStyle,
    QTabWidget,
    QToolTip,
    QWidget,
)

MIN_CHARS = 8  # an elided label or a combo box is never narrower than this many average characters
FRAME = (16, 48)  # what a window manager's frame and title bar may add to a window's width and height


def _joined(*parts: str) -> str:
    """The parts of a tooltip, each once (a widget's own tooltip may already be its whole text)."""
    return "\n\n".join(dict.fromkeys(p for p in parts if p))


class ElidedLabel(QLabel):
    """A one-line plain-text label that is as wide as its text when it can be, and shrinks down to `min_chars`
    characters when the window is narrow, eliding (in the middle by default: ids and file names differ at both
    ends). text() stays the whole text; the tooltip shows it whole (before the label's own tooltip) when cut."""

    def __init__(self, text: str = "", parent=None, mode: Qt.TextElideMode = Qt.ElideMiddle,
                 min_chars: int = MIN_CHARS):
        super().__init__("", parent)
        self.setTextFormat(Qt.PlainText)
        self.mode = mode
        self.min_chars = min_chars
        self._whole = ""
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        """One line, whatever the text: its line breaks (an error's message) are shown as spaces. Shown as they
        were, they made the label as many lines high, and a status bar holding it with it: a ten-line OCR error
        made the main window 935 px high on a 768 px screen. text() and the tooltip keep them."""
        self._whole = text
        super().setText(" ".join(text.split()) if "\n" in text or "\r" in text else text)

    def clear(self) -> None:
        self._whole = ""
        super().clear()

    def text(self) -> str:
        return self._whole

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        hint = super().minimumSizeHint()
        margins = self.contentsMargins()
        least = (self.fontMetrics().averageCharWidth() * self.min_chars + 2 * self.margin() + margins.left()
                 + margins.right())
        return QSize(min(hint.width(), least), hint.height())

    def _room(self) -> int:
        return self.contentsRect().width() - 2 * self.margin() - max(self.indent(), 0)

    def shown_text(self) -> str:
        """What the label shows now: its line, or the line elided to its width."""
        return self.fontMetrics().elidedText(super().text(), self.mode, max(self._room(), 0))

    def is_elided(self) -> bool:
        return self.shown_text() != super().text()

    def _shown_whole(self) -> bool:
        return not self.is_elided() and self._whole == super().text()

    def tooltip_text(self) -> str:
        """What hovering shows: the whole text when cut or made one line, then the label's own tooltip."""
        return _joined("" if self._shown_whole() else self._whole, self.toolTip())

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        if not self.is_elided():
            super().paintEvent(event)
            return
        painter = QPainter(self)
        rect = self.contentsRect().adjusted(self.margin(), self.margin(), -self.margin(), -self.margin())
        self.style().drawItemText(painter, rect, int(self.alignment()), self.palette(), self.isEnabled(),
                                  self.shown_text(), self.foregroundRole())

    def event(self, event) -> bool:
        if event.type() == QEvent.ToolTip and not self._shown_whole():
            QToolTip.showText(event.globalPos(), self.tooltip_text(), self)
            return True
        return super().event(event)


class _ComboTips(QObject):
    """Hovering a combo box whose current text is cut shows that text whole, before the box's own tooltip."""

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.ToolTip and isinstance(watched, QComboBox):
            text = combo_tooltip(watched)
            if text:
                QToolTip.showText(event.globalPos(), text, watched)
                return True
        return False


_TIPS: _ComboTips | None = None


def combo_tooltip(combo: QComboBox) -> str:
    """What hovering the combo box shows: its current text when the box is too narrow for it, and its tooltip."""
    current = combo.currentText()
    # the text's room: the box less its arrow and frame (about the height of the box, as the styles draw it)
    room = combo.width() - combo.height() - 8
    cut = combo.fontMetrics().horizontalAdvance(current) > room
    return _joined(current if cut else "", combo.toolTip())


def fit_combo(combo: QComboBox, chars: int = 12) -> QComboBox:
    """Never wider than `chars` characters because of an item: the longest item no longer sets the box's
    width (a layout may still stretch it). Returns the combo box."""
    global _TIPS
    combo.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(chars)
    if _TIPS is None:
        _TIPS = _ComboTips()
    combo.installEventFilter(_TIPS)
    return combo


class ElidedGroupBox(QGroupBox):
    """A group box whose title (a run's name in it, say) never sets its width: Qt counts the whole title in a
    box's minimum. The title is cut in the middle to the box's width, whole in the box's tooltip when cut;
    title() stays the whole title."""

    def __init__(self, title: str = "", parent=None):
        super().__init__(parent)
        self._title = ""
        self._tip = ""
        self.setTitle(title)

    def title(self) -> str:
        return self._title

    def setTitle(self, title: str) -> None:  # noqa: N802 (Qt's name)
        self._title = title
        self._elide()

    def setToolTip(self, tip: str) -> None:  # noqa: N802 (Qt's name)
        self._tip = tip
        self._elide()

    def shown_title(self) -> str:
        return super().title()

    def _elide(self) -> None:
        room = max(self.width() - 24, self.fontMetrics().averageCharWidth() * MIN_CHARS)
        shown = self.fontMetrics().elidedText(self._title, Qt.ElideMiddle, room)
        if shown != super().title():
            super().setTitle(shown)
        super().setToolTip(_joined(self._title if shown != self._title else "", self._tip))

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._elide()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        hint = super().minimumSizeHint()
        layout = self.layout()
        if layout is None:
            return hint
        margins = self.contentsMargins()  # the content's own minimum, not the title's
        content = layout.totalMinimumSize().width() + margins.left() + margins.right()
        least = self.fontMetrics().averageCharWidth() * MIN_CHARS + 24
        return QSize(max(content, least), hint.height())


class CurrentPageStack(QStackedWidget):
    """A QStackedWidget asks for the room of its largest page, shown or not: a hidden page (the judge agreement,
    say) then held the window wider than the shown one needs. This one asks for the shown page's room only."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.currentChanged.connect(lambda _i: self.updateGeometry())

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        page = self.currentWidget()
        return page.sizeHint() if page is not None else super().sizeHint()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        page = self.currentWidget()
        if page is None:
            return super().minimumSizeHint()
        return page.minimumSizeHint().expandedTo(page.minimumSize())


class _UpAndDown(QScrollArea):
    """Scrolls up and down only: as narrow as its content may be (plus the scroll bar), as short as a few lines."""

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        hint = super().minimumSizeHint()
        inner = self.widget()
        if inner is None:
            return hint
        width = inner.minimumSizeHint().expandedTo(inner.minimumSize()).width()
        return QSize(width + self.verticalScrollBar().sizeHint().width() + 2 * self.frameWidth(), hint.height())


class CurrentPageTabs(QTabWidget):
    """A QTabWidget asks for the room of its largest page too: one a tab away (the verification panel, say) held
    the side panel wide. This one asks for the shown page's room and its tab bar."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.currentChanged.connect(lambda _i: self.updateGeometry())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        page = self.currentWidget()
        if page is None:
            return super().minimumSizeHint()
        inner = page.minimumSizeHint().expandedTo(page.minimumSize())
        bar = self.tabBar().minimumSizeHint()
        frame = 2 * self.style().pixelMetric(QStyle.PM_DefaultFrameWidth, None, self) if not self.documentMode() else 0
        return QSize(max(inner.width(), bar.width()) + frame, inner.height() + bar.height() + frame)


def scrolled(widget: QWidget, sideways: bool = False) -> QScrollArea:
    """`widget` in a frameless scroll area: a panel taller than the room it may get scrolls instead of holding
    the window taller. Up and down only unless `sideways` (then it scrolls both ways and asks for no width)."""
    area = QScrollArea() if sideways else _UpAndDown()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.NoFrame)
    if not sideways:
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
    return area


def open_at(window: QWidget, width: int, height: int) -> None:
    """A window's first size: `width` x `height`, or less on a smaller screen (a laptop's 1366x768, or 1280x720
    at 200 %: a window larger than its screen opens with its edges, and its buttons, off it)."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is not None:
        room = screen.availableGeometry()
        width, height = min(width, room.width() - FRAME[0]), min(height, room.height() - FRAME[1])
    window.resize(width, height)


class FlowLayout(QLayout):
    """Widgets left to right, wrapping onto the next line when the width runs out (a panel's row of buttons):
    as narrow as its widest widget, as tall as its lines at the width it gets (height for width)."""

    def __init__(self, parent=None, spacing: int = 6):
        super().__init__(parent)
        self._items = []
        self._width = 0  # the width last laid out at: the minimum height is that of the lines it needed
        self.setContentsMargins(0, 0, 0, 0)
        self.setSpacing(spacing)

    def addItem(self, item) -> None:  # noqa: N802 (Qt's name)
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int):  # noqa: N802 (Qt's name)
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int):  # noqa: N802 (Qt's name)
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802 (Qt's name)
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt's name)
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt's name)
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 (Qt's name)
        super().setGeometry(rect)
        self._arrange(rect, move=True)
        if rect.width() != self._width:  # wrapped onto more (or fewer) lines: the parents ask again how tall
            self._width = rect.width()  # it must be (a dock does not ask a layout its height for a width)
            self.invalidate()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        # one line when there is room: the widths side by side
        visible = [i for i in self._items if not i.isEmpty()]
        margins = self.contentsMargins()
        width = sum(i.sizeHint().width() for i in visible) + self.spacing() * max(len(visible) - 1, 0)
        height = max((i.sizeHint().height() for i in visible), default=0)
        return QSize(width + margins.left() + margins.right(), height + margins.top() + margins.bottom())

    def minimumSize(self) -> QSize:  # noqa: N802 (Qt's name)
        size = QSize()
        for item in self._items:
            if not item.isEmpty():
                size = size.expandedTo(item.minimumSize())
        margins = self.contentsMargins()
        size += QSize(margins.left() + margins.right(), margins.top() + margins.bottom())
        if self._width:
            size.setHeight(max(size.height(), self.heightForWidth(max(self._width, size.width()))))
        return size

    def _arrange(self, rect: QRect, move: bool) -> int:
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        x, y, line = area.x(), area.y(), 0
        for item in self._items:
            if item.isEmpty():
                continue
            hint = item.sizeHint()  # a widget wider than the line (a long text) gets the line, down to its minimum
            hint.setWidth(max(min(hint.width(), area.width()), item.minimumSize().width()))
            if x > area.x() and x + hint.width() > area.right() + 1:  # no room left on this line: the next
                x, y, line = area.x(), y + line + self.spacing(), 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self.spacing()
            line = max(line, hint.height())
        return y + line - rect.y() + margins.bottom()
