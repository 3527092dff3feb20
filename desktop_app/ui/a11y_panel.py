"""The accessibility tree of the current screen (an Android uiautomator dump), linked with the canvas.

A dock beside the properties: a tree view over the screen's UiTree (node, `[i]` tag, actions), a filter
box, and the box tools of the Sphinx corrections (boxes drawn on a button's text label instead of the
button, nodes whose `clickable` flag is wrong):

  - hovering a row outlines the node's bounds on the canvas; hovering the canvas outlines the node under
    the mouse and names it in the status bar; both use ONE dashed item (NodeOutline), moved, never re-made;
  - selecting a box selects the node that matches it best (IoU >= 0.5) and scrolls to it;
  - a double click on a node adds a gold box at its bounds (the undoable add-box command);
  - Snap to node / Promote to clickable ancestor change the selected boxes (one undoable change each);
  - Flag clickable wrong toggles an annotator's correction of the node (an undoable command).

The model is lazy: Qt asks for the rows it shows, each index carries its node id, and nothing is built
per node, so a 3,000-node dump opens in a few milliseconds beyond its parsing.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import shiboken6
from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QModelIndex,
    QObject,
    QPointF,
    QRectF,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QIcon, QPainter, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGraphicsItem,
    QGridLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QStackedWidget,
    QStyleOptionGraphicsItem,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from desktop_app import api
from desktop_app.a11y.observe import tags
from desktop_app.a11y.stored import StoredTree
from desktop_app.a11y.tree import EDIT_TEXT, Node, UiTree
from desktop_app.ui.model_roles import RolesInOneCall

MATCH_IOU = 0.5  # a selected box -> the node shown in the tree
SNAP_IOU = 0.3  # a box -> the node whose bounds it takes (snap, promote)
OPEN_ROWS = 150  # a tree opens breadth-first until about this many rows show (small trees: fully open)
COLUMNS = ("Node", "Tag", "Actions")
DISPLAY, DECORATION, TOOLTIP, FONT, BACKGROUND, FOREGROUND = (
    r.value for r in (Qt.DisplayRole, Qt.DecorationRole, Qt.ToolTipRole, Qt.FontRole, Qt.BackgroundRole,
                      Qt.ForegroundRole))
ROLES = frozenset((DISPLAY, DECORATION, TOOLTIP, FONT, BACKGROUND, FOREGROUND))
NO_TREE = "This screen has no accessibility tree"
OUTLINE_COLOUR = QColor("#d400ff")  # magenta: apart from every label palette and from OCR suggestions


# -- Qt-free helpers ------------------------------------------------------------------------------------
def short_class(node: Node) -> str:
    return node.cls.rsplit(".", 1)[-1] or "View"


def node_words(node: Node) -> str:
    """What the node says: its text, else its content description."""
    return node.text or node.description


def node_caption(node: Node, limit: int = 60) -> str:
    """Class short name and what identifies the node: its text, its description or its id."""
    def cut(text: str) -> str:
        text = " ".join(text.split())
        return text if len(text) <= limit else text[:limit - 1] + "…"

    kind = short_class(node)
    if node.text:
        return f'{kind} "{cut(node.text)}"'
    if node.description:
        return f"{kind} ‹{cut(node.description)}›"
    if node.short_id:
        return f"{kind} #{cut(node.short_id)}"
    return kind


def node_tooltip(stored: StoredTree, node: Node, tag: int | None) -> str:
    x1, y1, x2, y2 = node.bounds
    lines = [node.cls or "(no class)"]
    for name, value in (("text", node.text), ("description", node.description), ("id", node.resource_id)):
        if value:
            lines.append(f"{name}: {' '.join(value.split())[:200]}")
    lines.append(f"bounds: [{x1},{y1}][{x2},{y2}]")
    lines.append(f"actions: {'/'.join(node.actions()) or 'none'}" + (f"  (tag [{tag}])" if tag is not None else ""))
    if node.system:
        lines.append("system UI (status or navigation bar): not part of the app's screen")
    if not node.visible:
        lines.append("not visible to the user")
    lines.extend(correction_lines(stored, node.id))
    return "\n".join(lines)


def correction_lines(stored: StoredTree, node_id: int) -> list[str]:
    fixes = stored.flags.get(node_id) or {}
    said = stored.original.get(node_id, {})
    out = [f"Corrected by an annotator: {key} is {value} (the dump says {said.get(key) or 'nothing'})"
           for key, value in fixes.items() if key != "note"]
    if fixes.get("note"):
        out.append(f"Note: {fixes['note']}")
    return out


def clickable_toggle(stored: StoredTree, node_id: int) -> tuple[dict[str, str] | None, str]:
    """The corrections of a node after "Flag clickable wrong", and the undo text: the flag is set to the
    opposite of the dump's value, or cleared when it is set (other corrections, e.g. a note, stay)."""
    fixes = dict(stored.flags.get(node_id) or {})
    if "clickable" in fixes:
        fixes.pop("clickable")
        return (fixes or None), "Clear clickable correction"
    dump = stored.tree.nodes[node_id].attrs.get("clickable", "false")
    fixes["clickable"] = "false" if dump == "true" else "true"
    return fixes, f"Flag node clickable={fixes['clickable']}"


def apply_corrections(stored: StoredTree, node_id: int, fixes: dict[str, str] | None) -> None:
    """Change one node's corrections in place, as a.11y.stored.parse_stored would have read them."""
    node = stored.tree.nodes[node_id]
    node.attrs.update(stored.original.pop(node_id, {}))
    stored.flags.pop(node_id, None)
    if fixes:
        stored.flags[node_id] = dict(fixes)
        stored.original[node_id] = {k: node.attrs.get(k, "") for k in fixes if k != "note"}
        node.attrs.update({k: v for k, v in fixes.items() if k != "note"})


def box_coords(box) -> tuple[float, float, float, float] | None:
    return None if box.x1 is None else (box.x1, box.y1, box.x2, box.y2)


def bounds_change(box, node: Node, words_from: Node | None = None) -> dict:
    """The box's new fields: the node's bounds, and its words as element text when the box had none."""
    x1, y1, x2, y2 = node.bounds
    after = {"x1": float(x1), "y1": float(y1), "x2": float(x2), "y2": float(y2)}
    words = node_words(node) or (node_words(words_from) if words_from is not None else "")
    if not (box.element_text or "").strip() and words:
        after["element_text"] = words
    return after


def snap_plan(tree: UiTree, boxes) -> tuple[dict[int, dict], list[str]]:
    """Box id -> new fields for "Snap to node" (the best-matching node's bounds), and what was said."""
    after, notes = {}, []
    for box in boxes:
        coords = box_coords(box)
        node = tree.best_match(coords, SNAP_IOU) if coords else None
        if node is None:
            notes.append(f"no node overlaps box {box.id} enough (IoU >= {SNAP_IOU})")
            continue
        after[box.id] = bounds_change(box, node)
        notes.append(f"snapped to {node_caption(node, 30)}")
    return after, notes


def promote_plan(tree: UiTree, boxes) -> tuple[dict[int, dict], list[str]]:
    """Box id -> new fields for "Promote to clickable ancestor": the bounds of the nearest node that takes a
    click, from the best-matching node up; a box whose node takes clicks itself stays as it is."""
    after, notes = {}, []
    for box in boxes:
        coords = box_coords(box)
        node = tree.best_match(coords, SNAP_IOU) if coords else None
        if node is None:
            notes.append(f"no node overlaps box {box.id} enough (IoU >= {SNAP_IOU})")
            continue
        target = tree.clickable_ancestor(node.id)
        if target is None:
            notes.append(f"{node_caption(node, 30)} has no clickable ancestor")
        elif target.id == node.id:
            notes.append(f"{node_caption(node, 30)} is clickable itself: box unchanged")
        else:
            after[box.id] = bounds_change(box, target, words_from=node)
            notes.append(f"promoted {node_caption(node, 30)} to {node_caption(target, 30)}")
    return after, notes


# -- the model ------------------------------------------------------------------------------------------
class TreeModel(RolesInOneCall, QAbstractItemModel):
    """A UiTree as a Qt item model. Each index's internalId is its node id; a filter keeps the matching
    nodes and their ancestors (the kept children lists are computed once per filter)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.stored: StoredTree | None = None
        self.tags: dict[int, int] = {}
        self.top: list[int] = []
        self.kids: list[list[int]] | dict[int, list[int]] = []
        self.rows: list[int] | dict[int, int] = []
        self.filter = ""
        self.marked: int | None = None  # the node outlined on the canvas: its row is tinted the same colour
        self._haystack: list[str] | None = None
        self._mark = QBrush(QColor(OUTLINE_COLOUR.red(), OUTLINE_COLOUR.green(), OUTLINE_COLOUR.blue(), 45))
        self._flag_icon = _flag_icon()
        self._grey = QBrush(QColor(140, 140, 140))
        self._italic = QFont()
        self._italic.setItalic(True)

    @property
    def tree(self) -> UiTree | None:
        return self.stored.tree if self.stored is not None else None

    def set_tree(self, stored: StoredTree | None) -> None:
        self.beginResetModel()
        self.stored = stored
        self.marked = None
        self._haystack = None
        self.tags = tags(stored.tree) if stored is not None else {}
        self._structure()
        self.endResetModel()

    def set_filter(self, text: str) -> None:
        text = text.strip().lower()
        if text == self.filter:
            return
        self.beginResetModel()
        self.filter = text
        self._structure()
        self.endResetModel()

    def set_marked(self, node_id: int | None) -> None:
        old, self.marked = self.marked, node_id
        if old == node_id:
            return
        for changed in (old, node_id):
            if changed is not None and self.shown(changed):
                self.dataChanged.emit(self.index_of(changed, 0), self.index_of(changed, len(COLUMNS) - 1),
                                      [Qt.BackgroundRole])

    def corrections_changed(self) -> None:
        """A node's corrections changed: its text and every `[i]` tag after it may change, not the rows."""
        if self.stored is None:
            return
        self.layoutAboutToBeChanged.emit()
        self.tags = tags(self.stored.tree)
        self.layoutChanged.emit()

    def _structure(self) -> None:
        tree = self.tree
        if tree is None:
            self.top, self.kids, self.rows = [], [], []
            return
        if not self.filter:
            self.top = list(tree.roots)
            self.kids = [n.children for n in tree.nodes]
            rows = [0] * len(tree.nodes)
            for ids in (tree.roots, *self.kids):
                for row, node_id in enumerate(ids):
                    rows[node_id] = row
            self.rows = rows
            return
        if self._haystack is None:
            self._haystack = [" ".join((n.text, n.description, n.resource_id, n.cls)).lower() for n in tree.nodes]
        keep = set()
        for node_id, words in enumerate(self._haystack):
            if self.filter in words:
                while node_id >= 0 and node_id not in keep:
                    keep.add(node_id)
                    node_id = tree.nodes[node_id].parent
        self.top = [r for r in tree.roots if r in keep]
        self.kids = {i: [c for c in tree.nodes[i].children if c in keep] for i in keep}
        self.rows = {}
        for ids in (self.top, *self.kids.values()):
            for row, node_id in enumerate(ids):
                self.rows[node_id] = row

    def shown(self, node_id: int) -> bool:
        return self.tree is not None and (not self.filter or node_id in self.rows)

    def matches(self) -> int:
        """How many nodes the filter matched themselves (ancestors kept for context not counted)."""
        if not self.filter or self._haystack is None:
            return 0
        return sum(1 for i in self.rows if self.filter in self._haystack[i])

    # Qt's item model ----------------------------------------------------------------------------------
    def _children(self, parent: QModelIndex) -> list[int]:
        return self.kids[parent.internalId()] if parent.isValid() else self.top

    def children_of(self, node_id: int) -> list[int]:
        """The node's children as shown (under a filter: those kept)."""
        return self.kids.get(node_id, []) if self.filter else self.kids[node_id]

    def index(self, row: int, column: int, parent: QModelIndex = QModelIndex()) -> QModelIndex:
        if self.tree is None or not 0 <= column < len(COLUMNS):
            return QModelIndex()
        ids = self._children(parent)
        return self.createIndex(row, column, ids[row]) if 0 <= row < len(ids) else QModelIndex()

    def index_of(self, node_id: int, column: int = 0) -> QModelIndex:
        if not self.shown(node_id):
            return QModelIndex()
        return self.createIndex(self.rows[node_id], column, node_id)

    def parent(self, index: QModelIndex | None = None):
        if index is None:
            return super().parent()  # QObject.parent()
        if not index.isValid() or self.tree is None:
            return QModelIndex()
        up = self.tree.nodes[index.internalId()].parent
        return QModelIndex() if up < 0 else self.createIndex(self.rows[up], 0, up)

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        if self.tree is None or (parent.isValid() and parent.column() != 0):
            return 0
        return len(self._children(parent))

    def hasChildren(self, parent: QModelIndex = QModelIndex()) -> bool:
        return self.rowCount(parent) > 0

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return len(COLUMNS)

    def headerData(self, section: int, orientation, role: int = Qt.DisplayRole):
        if orientation == Qt.Horizontal and role == Qt.DisplayRole:
            return COLUMNS[section]
        return None

    def node(self, index: QModelIndex) -> Node | None:
        return self.tree.nodes[index.internalId()] if index.isValid() and self.tree is not None else None

    def data(self, index: QModelIndex, role: int = DISPLAY):
        # Called ~10 times per cell and paint: roles compared as plain ints (an enum comparison costs 2 us).
        if role not in ROLES or self.stored is None or not index.isValid():
            return None
        node = self.stored.tree.nodes[index.internalId()]
        column = index.column()
        if role == DISPLAY:
            if column == 0:
                return node_caption(node)
            if column == 1:
                tag = self.tags.get(node.id)
                return f"[{tag}]" if tag is not None else ""
            return "/".join(node.actions())
        if role == BACKGROUND:
            return self._mark if node.id == self.marked else None
        if role == FOREGROUND:
            return self._grey if node.system or not node.visible else None
        if role == FONT:
            return None if node.visible else self._italic
        if role == DECORATION:
            return self._flag_icon if column == 0 and node.id in self.stored.flags else None
        return node_tooltip(self.stored, node, self.tags.get(node.id))  # TOOLTIP


def _flag_icon() -> QIcon:
    pixmap = QPixmap(14, 14)
    pixmap.fill(Qt.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.Antialiasing)
    painter.setPen(QPen(QColor("#6b4a00"), 1.5))
    painter.drawLine(QPointF(3, 1.5), QPointF(3, 13))
    painter.setBrush(QColor("#ff9f1c"))
    painter.setPen(QPen(QColor("#b36b00"), 1))
    painter.drawPolygon(QPolygonF([QPointF(3.5, 2), QPointF(12.5, 4.5), QPointF(3.5, 8)]))
    painter.end()
    return QIcon(pixmap)


# -- the canvas outline --------------------------------------------------------------------------------
class NodeOutline(QGraphicsItem):
    """The hovered (or selected) node's bounds on the canvas: a dashed magenta outline over a dark one, and
    its caption in screen pixels. One per scene, moved on each hover; it takes no mouse buttons."""

    def __init__(self):
        super().__init__()
        self._rect = QRectF()
        self.caption = ""
        self.node_id: int | None = None
        self.under = QPen(QColor(0, 0, 0, 170), 4)
        self.under.setCosmetic(True)
        self.pen = QPen(OUTLINE_COLOUR, 2, Qt.DashLine)
        self.pen.setCosmetic(True)
        self.font = QFont()
        self.font.setPixelSize(11)
        self.metrics = QFontMetrics(self.font)
        self.setZValue(30)  # above the boxes (5, 10) and the agents' markers (20)
        self.setAcceptedMouseButtons(Qt.NoButton)
        self.setVisible(False)

    def rect(self) -> QRectF:
        return QRectF(self._rect)

    def show_node(self, node: Node | None, caption: str = "") -> None:
        if node is None:
            self.node_id = None
            self.setVisible(False)
            return
        x1, y1, x2, y2 = node.bounds
        rect = QRectF(QPointF(x1, y1), QPointF(x2, y2)).normalized()
        if node.id == self.node_id and rect == self._rect and self.isVisible():
            return
        self.prepareGeometryChange()
        self.node_id, self._rect, self.caption = node.id, rect, caption
        self.setVisible(True)
        self.update()

    def _px(self) -> float:
        scene = self.scene()
        return getattr(scene, "px", 1.0) if scene is not None else 1.0

    def boundingRect(self) -> QRectF:
        px = self._px()
        width = (self.metrics.horizontalAdvance(self.caption) + 12) * px
        caption = (self.metrics.height() + 6) * px  # below the outline, or above it at the bottom of the view
        return self._rect.adjusted(-4 * px, -caption, max(0.0, width - self._rect.width()) + 4 * px, caption)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        painter.setBrush(Qt.NoBrush)
        painter.setPen(self.under)
        painter.drawRect(self._rect)
        painter.setPen(self.pen)
        painter.drawRect(self._rect)
        if not self.caption:
            return
        # under the bottom-left corner: the canvas captions the boxes above their top-left corners
        transform = painter.worldTransform()
        corner = transform.map(self._rect.bottomLeft())
        height = self.metrics.height() + 2
        width = self.metrics.horizontalAdvance(self.caption) + 8
        y = corner.y() + 2
        device = painter.device()
        if device is not None and y + height > device.height():
            y = max(transform.map(self._rect.topLeft()).y() - height - 2, 0)
        painter.save()
        painter.resetTransform()  # the caption keeps one size at every zoom
        painter.setFont(self.font)
        painter.fillRect(QRectF(corner.x(), y, width, height), OUTLINE_COLOUR)
        painter.setPen(QColor("white"))
        painter.drawText(QPointF(corner.x() + 4, y + self.metrics.ascent() + 1), self.caption)
        painter.restore()


# -- the panel -----------------------------------------------------------------------------------------
class A11yPanel(QWidget):
    message = Signal(str, int)  # for the status bar: text, timeout in ms (0: until the next message)
    wanted = Signal()  # the first screen with a tree was loaded while the panel is hidden: bring it forward

    def __init__(self, scene, view, parent=None):
        super().__init__(parent)
        self.setObjectName("a11y-panel")
        self.scene = scene
        self.view = view
        self.ws = None
        self.stored: StoredTree | None = None
        self.active = False  # the panel is showing: the canvas is linked
        self.auto_show = True  # the first screen with a tree brings the panel forward, once
        self._dirty = True  # the step changed while the panel was not linked
        self._loaded_step: int | None = None
        self._outline: NodeOutline | None = None
        self._hover_tree: int | None = None  # node id under the mouse in the tree
        self._hover_canvas: int | None = None  # node id under the mouse on the canvas
        self._selection: Callable[[], list[int]] = lambda: []

        self.model = TreeModel(self)
        self.filter = QLineEdit(placeholderText="Filter by text, id or class")
        self.filter.setClearButtonEnabled(True)
        self.summary = QLabel()
        self.summary.setStyleSheet("color: gray")
        self.tree_view = QTreeView()
        self.tree_view.setObjectName("a11y-tree")
        self.tree_view.setModel(self.model)
        self.tree_view.setUniformRowHeights(True)  # rows of one height: no per-row size queries
        self.tree_view.setMouseTracking(True)
        self.tree_view.setExpandsOnDoubleClick(False)  # a double click makes a box
        self.tree_view.setSelectionMode(QAbstractItemView.SingleSelection)
        self.tree_view.setAllColumnsShowFocus(True)
        self.tree_view.setIndentation(12)
        header = self.tree_view.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.Stretch)
        for column, width in ((1, 38), (2, 64)):
            header.setSectionResizeMode(column, QHeaderView.Interactive)
            header.resizeSection(column, width)
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.details.setMinimumHeight(QFontMetrics(self.details.font()).lineSpacing() * 2)

        self.snap_button = QPushButton("Snap to node")
        self.promote_button = QPushButton("Promote to clickable ancestor")
        self.flag_button = QPushButton("Flag clickable wrong")
        self.snap_button.clicked.connect(self.snap_selected)
        self.promote_button.clicked.connect(self.promote_selected)
        self.flag_button.clicked.connect(self.flag_current)
        tools = QGridLayout()
        tools.setContentsMargins(0, 0, 0, 0)
        tools.addWidget(self.snap_button, 0, 0)
        tools.addWidget(self.flag_button, 0, 1)
        tools.addWidget(self.promote_button, 1, 0, 1, 2)

        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.filter)
        layout.addWidget(self.summary)
        layout.addWidget(self.tree_view, 1)
        layout.addWidget(self.details)
        layout.addLayout(tools)
        self.empty = QLabel(NO_TREE)
        self.empty.setAlignment(Qt.AlignCenter)
        self.empty.setWordWrap(True)
        self.empty.setStyleSheet("color: gray")
        self.pages = QStackedWidget()
        self.pages.addWidget(self.empty)
        self.pages.addWidget(page)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        outer.addWidget(self.pages)

        self._filter_timer = QTimer(self, singleShot=True, interval=150)
        self._filter_timer.timeout.connect(self._apply_filter)
        self.filter.textChanged.connect(lambda _t: self._filter_timer.start())
        self.tree_view.entered.connect(self._row_hovered)
        self.tree_view.viewport().installEventFilter(self)
        self.tree_view.doubleClicked.connect(self._row_double_clicked)
        self.tree_view.selectionModel().currentChanged.connect(self._current_changed)
        self.view.viewport().installEventFilter(self)
        self.scene.cursorMoved.connect(self._canvas_hovered)
        self._show_tree(None)

    # wiring ---------------------------------------------------------------------------------------------
    def set_workspace(self, ws) -> None:
        if self.ws is not None and shiboken6.isValid(self.ws):
            self.ws.treeFlagged.disconnect(self._flagged)
        self.ws = ws
        if ws is not None:
            ws.treeFlagged.connect(self._flagged)
        self._loaded_step = None
        self._show_tree(None)

    def set_selection_provider(self, provider: Callable[[], list[int]]) -> None:
        """Where the selected box ids come from (the window: canvas or the properties' list)."""
        self._selection = provider

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.set_active(True)

    def hideEvent(self, event) -> None:
        super().hideEvent(event)
        self.set_active(False)

    def set_active(self, on: bool) -> None:
        """The panel was shown or hidden: link the canvas (loading the tree if the step changed) or unlink."""
        if on == self.active:
            return
        self.active = on
        if on:
            self.auto_show = False  # shown once: from now on the user decides
            if self._dirty:
                self.reload()
            self._update_outline()
        else:
            if self._hover_canvas is not None:
                self.message.emit("", 0)
            self._hover_tree = self._hover_canvas = None
            self._update_outline()

    # loading --------------------------------------------------------------------------------------------
    def show_step(self) -> None:
        """The window shows a new step (the scene is loaded): read its tree when the panel is in use."""
        self._dirty = True
        self._outline = None  # the scene was cleared with everything on it
        if self.active or self.auto_show:
            self.reload()

    def reload(self) -> None:
        self._dirty = False
        ws = self.ws
        step = ws.step if ws is not None else None
        stored = api.screen_tree(ws.project, step.id) if step is not None else None
        self._loaded_step = step.id if step is not None else None
        self._show_tree(stored)
        if stored is not None and not self.active and self.auto_show:
            self.auto_show = False
            self.wanted.emit()

    def ensure_loaded(self) -> StoredTree | None:
        step = self.ws.step if self.ws is not None else None
        if self._dirty or (step is not None and step.id != self._loaded_step):
            self.reload()
        return self.stored

    def _show_tree(self, stored: StoredTree | None) -> None:
        self.stored = stored
        self._hover_tree = self._hover_canvas = None
        self.model.set_tree(stored)
        self.pages.setCurrentIndex(0 if stored is None else 1)
        if stored is None:
            self.empty.setText(NO_TREE if self.ws is not None and self.ws.step is not None else "No screen")
        else:
            self._expand_default()
        for button in (self.snap_button, self.promote_button, self.flag_button):
            button.setEnabled(stored is not None)
        self._update_summary()
        self._show_details(None)
        self._update_outline()

    def _expand_default(self) -> None:
        """Open the tree breadth-first while it shows at most OPEN_ROWS rows: the long chains of single-child
        layouts of real dumps open, a grid of a thousand cells stays one row (expandAll would make Qt lay out
        every node)."""
        model = self.model
        if model.filter and len(model.rows) <= 4 * OPEN_ROWS:
            self.tree_view.expandAll()  # filtered: the matches are what was asked for
            return
        rows, queue, opened = len(model.top), deque(model.top), []
        while queue:
            node_id = queue.popleft()
            children = model.children_of(node_id)
            if children and rows + len(children) <= OPEN_ROWS:
                rows += len(children)
                opened.append(node_id)
                queue.extend(children)
        for node_id in opened:
            self.tree_view.expand(model.index_of(node_id))

    def _update_summary(self) -> None:
        if self.stored is None:
            self.summary.clear()
            return
        tree = self.stored.tree
        parts = [f"{len(tree.nodes):,} nodes", f"{len(self.model.tags):,} tagged"]
        if self.stored.flags:
            parts.append(f"{len(self.stored.flags)} corrected")
        if self.model.filter:
            parts.insert(0, f"{self.model.matches():,} match")
        self.summary.setText(" · ".join(parts))

    def _apply_filter(self) -> None:
        current = self.current_node()
        self.model.set_filter(self.filter.text())
        if self.stored is not None:
            self._expand_default()
            if current is not None and self.model.shown(current.id):
                self.select_node(current.id)
        self._update_summary()

    # the tree's side ------------------------------------------------------------------------------------
    def current_node(self) -> Node | None:
        return self.model.node(self.tree_view.currentIndex())

    def select_node(self, node_id: int | None) -> None:
        if node_id is None or not self.model.shown(node_id):
            self.tree_view.selectionModel().clearSelection()
            self.tree_view.setCurrentIndex(QModelIndex())
            return
        index = self.model.index_of(node_id)
        self.tree_view.setCurrentIndex(index)
        self.tree_view.scrollTo(index)  # expands its ancestors

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._show_details(self.model.node(current))
        self._update_outline()

    def _show_details(self, node: Node | None) -> None:
        if node is None or self.stored is None:
            self.details.setText("Hover a node to see it on the screen; double-click it to add a box there."
                                 if self.stored is not None else "")
            return
        x1, y1, x2, y2 = node.bounds
        tag = self.model.tags.get(node.id)
        text = (f"<b>{_html(node_caption(node, 80))}</b>{f' [{tag}]' if tag is not None else ''}<br>"
                f"[{x1},{y1}][{x2},{y2}] · {_html(node.cls or 'no class')}")
        fixes = correction_lines(self.stored, node.id)
        if fixes:
            text += "<br><span style='color:#b36b00'>" + "<br>".join(map(_html, fixes)) + "</span>"
        self.details.setText(text)

    def _row_hovered(self, index: QModelIndex) -> None:
        node = self.model.node(index)
        self._hover_tree = node.id if node is not None else None
        self._update_outline()

    def _row_double_clicked(self, index: QModelIndex) -> None:
        node = self.model.node(index)
        if node is None or self.ws is None or self.ws.step is None:
            return
        image = self.scene.image_rect
        rect = QRectF(QPointF(*node.bounds[:2]), QPointF(*node.bounds[2:])).normalized().intersected(image)
        if rect.width() < 1 or rect.height() < 1:
            self.message.emit(f"{node_caption(node, 40)} lies outside the screenshot: no box added", 5000)
            return
        self.ws.add_boxes([{"x1": rect.left(), "y1": rect.top(), "x2": rect.right(), "y2": rect.bottom(),
                            "label": "gold", "source": "manual",
                            "action_type": "type" if node.cls == EDIT_TEXT else "click",
                            "element_text": node_words(node)}], "Add box from tree node")

    # the canvas's side ----------------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Leave:
            if watched is self.tree_view.viewport() and self._hover_tree is not None:
                self._hover_tree = None
                self._update_outline()
            elif watched is self.view.viewport() and self._hover_canvas is not None:
                self._hover_canvas = None
                self.message.emit("", 0)
                self._update_outline()
        return False

    def _canvas_hovered(self, pos: QPointF) -> None:
        if not self.active or self.stored is None:
            return
        node = self.stored.tree.node_at(pos.x(), pos.y())
        node_id = node.id if node is not None else None
        if node_id == self._hover_canvas:
            return
        self._hover_canvas = node_id
        if node is None:
            self.message.emit("", 0)
        else:
            tag = self.model.tags.get(node.id)
            actions = "/".join(node.actions())
            self.message.emit(f"Node: {node_caption(node, 80)}" + (f"  [{tag}]" if tag is not None else "")
                              + (f" · {actions}" if actions else ""), 0)
        self._update_outline()

    def boxes_selected(self, ids: list[int]) -> None:
        """Boxes were selected on the canvas: show the node that matches the box best (none: no node)."""
        if not self.active or self.stored is None or self.ws is None or len(ids) != 1:
            return
        box = self.ws.boxes.get(ids[0])
        coords = box_coords(box) if box is not None else None
        if coords is None:
            return
        node = self.stored.tree.best_match(coords, MATCH_IOU)
        self.select_node(node.id if node is not None else None)

    def outline(self) -> NodeOutline | None:
        """The one outline item of the current scene (made when the scene is new, then reused)."""
        if self.scene.layer is None:
            return None  # nothing loaded
        if self._outline is None or not shiboken6.isValid(self._outline) or self._outline.scene() is not self.scene:
            self._outline = NodeOutline()
            self.scene.addItem(self._outline)
        return self._outline

    def _update_outline(self) -> None:
        """The outline shows the node hovered in the tree, else the one under the mouse, else the current one."""
        shown = None
        if self.active and self.stored is not None:
            for node_id in (self._hover_tree, self._hover_canvas):
                if node_id is not None:
                    shown = node_id
                    break
            else:
                current = self.current_node()
                shown = current.id if current is not None else None
        self.model.set_marked(shown)
        if shown is None and (self._outline is None or not shiboken6.isValid(self._outline)):
            return  # nothing to hide
        item = self.outline()
        if item is None:
            return
        node = self.stored.tree.nodes[shown] if shown is not None else None
        item.show_node(node, node_caption(node, 40) if node is not None else "")

    # box tools ------------------------------------------------------------------------------------------
    def _selected_boxes(self) -> list:
        if self.ws is None:
            return []
        return [self.ws.boxes[i] for i in self._selection() if i in self.ws.boxes]

    def _box_tool(self, plan, undo_text: str) -> None:
        stored = self.ensure_loaded() if self.ws is not None else None
        if stored is None:
            self.message.emit(NO_TREE, 4000)
            return
        boxes = self._selected_boxes()
        if not boxes:
            self.message.emit("Select a box first", 4000)
            return
        after, notes = plan(stored.tree, boxes)
        if after:
            self.ws.change_boxes(after, undo_text)
        self.message.emit("; ".join(dict.fromkeys(notes)).capitalize(), 6000)

    def snap_selected(self) -> None:
        self._box_tool(snap_plan, "Snap to node")

    def promote_selected(self) -> None:
        self._box_tool(promote_plan, "Promote to clickable ancestor")

    def flag_current(self) -> None:
        stored = self.ensure_loaded() if self.ws is not None else None
        if stored is None:
            self.message.emit(NO_TREE, 4000)
            return
        node = self.current_node()
        if node is None:
            self.message.emit("Select a node in the accessibility tree first", 4000)
            return
        fixes, text = clickable_toggle(stored, node.id)
        self.ws.flag_tree_node(stored.tree_id, node.id, fixes, text)

    def _flagged(self, tree_id: int, node_id: int, fixes) -> None:
        """A correction was written (or undone): show it without reading the tree again."""
        if self.stored is None or self.stored.tree_id != tree_id:
            return
        apply_corrections(self.stored, node_id, fixes)
        self.model.corrections_changed()
        node = self.stored.tree.nodes[node_id]
        if self.current_node() is not None and self.current_node().id == node_id:
            self._show_details(node)
        self._update_summary()
        said = correction_lines(self.stored, node_id)
        self.message.emit(f"{node_caption(node, 40)}: " + (said[0] if said else "correction cleared"), 6000)


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
