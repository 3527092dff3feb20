"""The samples as a grid of thumbnails beside the list (issue 21, item 16), like FiftyOne's and Label Studio's.

The grid is a second view of the sample list's own model and selection model: one current sample, one
filter, one paging of rows. Choosing a thumbnail is choosing that row in the list (which loads the episode),
and a row chosen anywhere else (keys A/D, the list) is the grid's current cell too.

Built for 100,000 samples: the cells sit on a fixed grid, so where a row is drawn is arithmetic, not a layout
of every row (Qt's QListView lays out all rows on each reset, resize or change: a tenth of a second or
more at that size). A paint touches only the rows on show; their first screens come a page of rows at a
time (api.samples.first_screens: one query); their thumbnails are decoded off the UI thread, already scaled
down by QImageReader, and kept in a bounded LRU, with a grey box of the right shape until they arrive.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import NamedTuple

from PySide6.QtCore import (
    QEvent,
    QItemSelection,
    QModelIndex,
    QObject,
    QPoint,
    QRect,
    QSize,
    Qt,
    QThread,
    QThreadPool,
    QTimer,
    Signal,
)
from PySide6.QtGui import QColor, QImage, QImageReader, QPainter, QPen, QPixmap, QRegion
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QSlider,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from desktop_app.api.samples import first_screens
from desktop_app.ui.browser import PAGE
from desktop_app.ui.palette import label_color

SIDE_RANGE = (96, 256)  # the slider's range: a thumbnail's width in pixels
DEFAULT_SIDE = 160
CACHE_ITEMS = 2000
CACHE_BYTES = 96 * 1024 * 1024  # 2,000 thumbnails of 160 px would be 128 MB, of 256 px 330 MB
SCREEN_PAGES = 64  # pages of rows whose first screens are kept (as the list keeps 64 pages of rows)
LABELS = ("gold", "distracted", "other")
MARGIN = 6  # around the grid
PAD = 5  # around a thumbnail inside its cell
MARK = 8  # a label mark's diameter
PLACEHOLDER = QColor("#c8c8c8")
BROKEN = "broken"  # an image that could not be read: cached too, so it is not decoded again at every paint


class LRU:
    """A map bounded by entry count and total cost that forgets what was used longest ago."""

    def __init__(self, max_items: int, max_cost: int | None = None):
        self.max_items = max_items
        self.max_cost = max_cost
        self.cost = 0
        self._entries: OrderedDict[Hashable, tuple[object, int]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries

    def get(self, key: Hashable, default=None):
        entry = self._entries.get(key)
        if entry is None:
            return default
        self._entries.move_to_end(key)
        return entry[0]

    def put(self, key: Hashable, value, cost: int = 0) -> None:
        old = self._entries.pop(key, None)
        if old is not None:
            self.cost -= old[1]
        self._entries[key] = (value, cost)
        self.cost += cost
        while len(self._entries) > self.max_items or (
                self.max_cost is not None and self.cost > self.max_cost and len(self._entries) > 1):
            _, (_, dropped) = self._entries.popitem(last=False)
            self.cost -= dropped

    def clear(self) -> None:
        self._entries.clear()
        self.cost = 0


class ScreenRef(NamedTuple):
    """An episode's first screen: what Project.image_path needs, and its size for the thumbnail's shape."""

    sha256: str
    ext: str
    width: int
    height: int


def thumb_size(ref: ScreenRef, box: QSize) -> QSize:
    """The thumbnail's size: the screen scaled to fit the box, its shape kept, never below one pixel."""
    size = QSize(max(ref.width, 1), max(ref.height, 1)).scaled(box, Qt.KeepAspectRatio)
    return QSize(max(size.width(), 1), max(size.height(), 1))


def read_thumbnail(path, size: QSize) -> QImage:
    """The image at `path` decoded at `size`: the reader scales while decoding where the format can (JPEG
    decodes at a fraction of its size; PNG decodes whole, then scales, in this worker thread)."""
    reader = QImageReader(str(path))
    reader.setScaledSize(size)
    return reader.read()


def cache_key(ref: ScreenRef, size: QSize) -> tuple:
    return ref.sha256, ref.ext, size.width(), size.height()


class ThumbnailDecoder(QObject):
    """Decodes thumbnails on pool threads. The queue holds what is on show now: each `want` replaces it,
    so thumbnails scrolled past before their turn are never decoded. `decoded` arrives on the UI thread."""

    decoded = Signal(object, QImage)

    def __init__(self, project, threads: int, parent=None):
        super().__init__(parent)
        self.project = project
        self.threads = threads
        self.count = 0  # images decoded so far (the benchmark and the tests read it)
        self._lock = threading.Condition()
        self._queue: OrderedDict[tuple, tuple[ScreenRef, QSize]] = OrderedDict()
        self._busy: set[tuple] = set()  # being decoded or delivered: not queued again meanwhile
        self._active = 0
        self._closed = False

    def want(self, requests: list[tuple[tuple, ScreenRef, QSize]]) -> None:
        with self._lock:
            if self._closed:
                return
            self._queue = OrderedDict((key, (ref, size)) for key, ref, size in requests if key not in self._busy)
            starting = min(self.threads - self._active, len(self._queue))
            self._active += starting
        # the global pool: a pool owned by this object would wait for its threads in its destructor, which
        # can run while the UI thread holds the GIL those threads need to finish
        for _ in range(starting):
            QThreadPool.globalInstance().start(self._work)

    def delivered(self, key: tuple) -> None:
        with self._lock:
            self._busy.discard(key)

    def _next(self) -> tuple | None:
        with self._lock:
            if self._closed or not self._queue:
                self._active -= 1
                self._lock.notify_all()
                return None
            key, (ref, size) = self._queue.popitem(last=False)
            self._busy.add(key)
            self.count += 1
            return key, ref, size

    def _work(self) -> None:
        while (job := self._next()) is not None:
            key, ref, size = job
            try:
                image = read_thumbnail(self.project.image_path(ref), size)
            except Exception:  # a media database that went away: a broken thumbnail, not a dead thread
                image = QImage()
            try:
                self.decoded.emit(key, image)
            except RuntimeError:  # the grid was deleted meanwhile: nobody to deliver to
                self._closed = True

    def shutdown(self) -> None:
        """Stop: drop the queue and wait for the images being decoded (at most one per thread)."""
        with self._lock:
            self._closed = True
            self._queue.clear()
            self._lock.wait_for(lambda: self._active == 0, timeout=10)


class ThumbnailSource(QObject):
    """Where the grid's pictures come from: each row's first screen (a page of rows per query), the decoded
    thumbnails (an LRU) and the decoder, asked for the ones on show that are missing."""

    changed = Signal()  # a thumbnail arrived

    def __init__(self, project, model, threads: int | None = None, parent=None):
        super().__init__(parent)
        self.project = project
        self.model = model
        # page number -> {episode id: (sha256, ext, width, height)}: plain tuples of strings and numbers, which
        # Python's garbage collector stops tracking (thousands of them, walked by every full collection else)
        self._screens = LRU(SCREEN_PAGES)
        self.pixmaps = LRU(CACHE_ITEMS, CACHE_BYTES)
        # one thread on a 2-core machine: the other core stays with the UI thread
        threads = threads or max(1, min(4, QThread.idealThreadCount() - 1))
        self.decoder = ThumbnailDecoder(project, threads, self)
        self.decoder.decoded.connect(self._arrived)

    def forget_rows(self) -> None:
        """The rows now hold other episodes (a filter changed): their pages of screens are stale."""
        self._screens.clear()

    def screen(self, row: int) -> ScreenRef | None:
        page = row // PAGE
        screens = self._screens.get(page)
        if screens is None:
            screens = self._fetch(page)
            self._screens.put(page, screens)
        screen = screens.get(self.model.episode_id_at(row))
        return ScreenRef(*screen) if screen else None

    def _fetch(self, page: int) -> dict[int, tuple]:
        last = min(self.model.stored_rows, (page + 1) * PAGE)
        ids = [i for i in (self.model.episode_id_at(row) for row in range(page * PAGE, last)) if i is not None]
        return first_screens(self.project, ids)

    def pixmap(self, ref: ScreenRef, size: QSize):
        """The thumbnail, BROKEN, or None while it is not decoded yet."""
        return self.pixmaps.get(cache_key(ref, size))

    def want(self, shown: list[tuple[ScreenRef, QSize]]) -> None:
        missing = [(key, ref, size) for ref, size in shown if (key := cache_key(ref, size)) not in self.pixmaps]
        self.decoder.want(missing)

    def _arrived(self, key: tuple, image: QImage) -> None:
        self.decoder.delivered(key)
        if image.isNull():
            self.pixmaps.put(key, BROKEN)
        else:
            self.pixmaps.put(key, QPixmap.fromImage(image), image.sizeInBytes())
        self.changed.emit()

    def shutdown(self) -> None:
        self.decoder.shutdown()


class GridView(QAbstractItemView):
    """Column 0 of the list's model as cells on a fixed grid, painted only where on show."""

    def __init__(self, source: ThumbnailSource, palette: str = "default", parent=None):
        super().__init__(parent)
        self.source = source
        self.palette_name = palette
        self.setObjectName("thumbnailGridView")
        self.box = QSize()
        self.cell = QSize()
        self.set_side(DEFAULT_SIDE)  # first: the calls below lay the grid out
        self.setSelectionMode(QAbstractItemView.SingleSelection)
        self.setSelectionBehavior(QAbstractItemView.SelectRows)  # the list highlights its whole row
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setVerticalScrollMode(QAbstractItemView.ScrollPerPixel)
        # asked once the paints of an event-loop turn are done, for all rows on show (a paint after one
        # thumbnail arrived covers only that cell)
        self._ask = QTimer(self, singleShot=True, interval=0)
        self._ask.timeout.connect(self._ask_for_shown)
        source.changed.connect(lambda: self.viewport().update())

    # geometry ---------------------------------------------------------------------------------------------
    def set_side(self, side: int) -> None:
        """Thumbnails `side` pixels wide in a 4:3 box: a desktop screenshot fills its width, a phone's its
        height."""
        text = self.fontMetrics().height()
        self.box = QSize(side, side * 3 // 4)
        self.cell = QSize(side + 2 * PAD, self.box.height() + 2 * PAD + text + 2)
        self.verticalScrollBar().setSingleStep(max(1, self.cell.height() // 3))
        self.updateGeometries()
        self.viewport().update()

    def columns(self) -> int:
        return max(1, (self.viewport().width() - 2 * MARGIN) // self.cell.width())

    def _left(self) -> int:
        """The grid is centred: the spare width on both sides."""
        return max(MARGIN, (self.viewport().width() - self.columns() * self.cell.width()) // 2)

    def _lines(self) -> int:
        return -(-self.model().stored_rows // self.columns()) if self.model() else 0

    def _cell_rect(self, row: int) -> QRect:
        columns = self.columns()
        x = self._left() + (row % columns) * self.cell.width()
        y = MARGIN + (row // columns) * self.cell.height() - self.verticalOffset()
        return QRect(QPoint(x, y), self.cell)

    def shown_rows(self) -> range:
        """The rows whose cells meet the viewport."""
        if self.model() is None:
            return range(0)
        top = max(0, (self.verticalOffset() - MARGIN) // self.cell.height())
        bottom = (self.verticalOffset() + self.viewport().height() - MARGIN) // self.cell.height()
        columns = self.columns()
        return range(top * columns, min(self.model().stored_rows, (bottom + 1) * columns))

    def thumbnail_rect(self, row: int) -> QRect:
        """Where row's thumbnail is drawn (or its grey box while it is not decoded)."""
        ref = self.source.screen(row)
        cell = self._cell_rect(row)
        size = thumb_size(ref, self.box) if ref else self.box
        x = cell.x() + (cell.width() - size.width()) // 2
        y = cell.y() + PAD + (self.box.height() - size.height()) // 2
        return QRect(QPoint(x, y), size)

    def updateGeometries(self) -> None:
        height = 2 * MARGIN + self._lines() * self.cell.height()
        bar = self.verticalScrollBar()
        bar.setPageStep(self.viewport().height())
        bar.setRange(0, max(0, height - self.viewport().height()))
        super().updateGeometries()

    # QAbstractItemView ------------------------------------------------------------------------------------
    def visualRect(self, index: QModelIndex) -> QRect:
        if not index.isValid() or index.parent().isValid():
            return QRect()
        return self._cell_rect(index.row())  # every column of a row: the list's model has six

    def indexAt(self, point: QPoint) -> QModelIndex:
        if self.model() is None:
            return QModelIndex()
        column = (point.x() - self._left()) // self.cell.width()
        line = (point.y() + self.verticalOffset() - MARGIN) // self.cell.height()
        row = line * self.columns() + column
        if not 0 <= column < self.columns() or line < 0 or row >= self.model().stored_rows:
            return QModelIndex()
        return self.model().index(row, 0)

    def scrollTo(self, index: QModelIndex, hint=QAbstractItemView.EnsureVisible) -> None:
        if not index.isValid():
            return
        rect = self._cell_rect(index.row())
        bar, height = self.verticalScrollBar(), self.viewport().height()
        top = rect.top() + self.verticalOffset() - MARGIN
        if hint == QAbstractItemView.PositionAtTop:
            bar.setValue(top)
        elif hint == QAbstractItemView.PositionAtBottom:
            bar.setValue(top + self.cell.height() + 2 * MARGIN - height)
        elif hint == QAbstractItemView.PositionAtCenter:
            bar.setValue(top + (self.cell.height() - height) // 2)
        elif rect.top() < 0:
            bar.setValue(top)
        elif rect.bottom() >= height:
            bar.setValue(top + self.cell.height() + 2 * MARGIN - height)

    def moveCursor(self, action, _modifiers) -> QModelIndex:
        n = self.model().stored_rows if self.model() else 0
        if n == 0:
            return QModelIndex()
        current = self.currentIndex().row() if self.currentIndex().isValid() else 0
        columns = self.columns()
        page = max(1, self.viewport().height() // self.cell.height()) * columns
        moves = {QAbstractItemView.MoveLeft: -1, QAbstractItemView.MovePrevious: -1,
                 QAbstractItemView.MoveRight: 1, QAbstractItemView.MoveNext: 1,
                 QAbstractItemView.MoveUp: -columns, QAbstractItemView.MoveDown: columns,
                 QAbstractItemView.MovePageUp: -page, QAbstractItemView.MovePageDown: page,
                 QAbstractItemView.MoveHome: -n, QAbstractItemView.MoveEnd: n}
        row = current + moves.get(action, 0)
        if action in (QAbstractItemView.MoveUp, QAbstractItemView.MoveDown) and not 0 <= row < n:
            row = current  # up from the top line stays, as in a list; left and right wrap to the next line
        return self.model().index(min(max(row, 0), n - 1), 0)

    def horizontalOffset(self) -> int:
        return 0

    def verticalOffset(self) -> int:
        return self.verticalScrollBar().value()

    def isIndexHidden(self, _index: QModelIndex) -> bool:
        return False

    def setSelection(self, rect: QRect, command) -> None:
        selection = QItemSelection()
        rect = rect.normalized()
        for row in self.shown_rows():  # a click or a rubber band: on show by definition
            if self._cell_rect(row).intersects(rect):
                index = self.model().index(row, 0)
                selection.select(index, index)
        self.selectionModel().select(selection, command)

    def visualRegionForSelection(self, selection: QItemSelection) -> QRegion:
        region = QRegion()
        shown = self.shown_rows()
        for part in selection:
            for row in range(max(part.top(), shown.start), min(part.bottom() + 1, shown.stop)):
                region += self._cell_rect(row)
        return region

    def keyboardSearch(self, _search: str) -> None:
        """Off: Qt's search would read every row of the model, 100,000 rows from the database."""

    def reset(self) -> None:
        self.source.forget_rows()
        super().reset()
        self.updateGeometries()
        self.viewport().update()

    def rowsInserted(self, parent: QModelIndex, start: int, end: int) -> None:
        super().rowsInserted(parent, start, end)
        self.updateGeometries()

    def dataChanged(self, top_left: QModelIndex, bottom_right: QModelIndex, roles=()) -> None:  # noqa: N802
        super().dataChanged(top_left, bottom_right, roles)
        # a folder's waiting rows became samples: the list's row count stays, the grid's lines grow
        self.updateGeometries()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.updateGeometries()

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        self.viewport().scroll(dx, dy)  # move the pixels already painted; only the strip uncovered is painted

    # painting ---------------------------------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        painter = QPainter(self.viewport())
        area = event.rect()
        selection = self.selectionModel()
        current = self.currentIndex().row() if self.currentIndex().isValid() else -1
        for row in self.shown_rows():
            cell = self._cell_rect(row)
            if cell.intersects(area):
                selected = selection is not None and selection.isRowSelected(row, QModelIndex())
                self._paint_cell(painter, row, cell, selected, row == current)
        painter.end()
        self._ask.start()

    def _paint_cell(self, painter: QPainter, row: int, cell: QRect, selected: bool, current: bool) -> None:
        palette = self.palette()
        if selected or current:
            colour = palette.highlight().color()
            fill = QColor(colour)
            fill.setAlpha(45 if selected else 20)  # a tint: the thumbnail stays readable under it
            painter.fillRect(cell.adjusted(1, 1, -1, -1), fill)
            painter.setPen(QPen(colour, 2))
            painter.setBrush(Qt.NoBrush)
            painter.drawRect(cell.adjusted(2, 2, -2, -2))
        ref = self.source.screen(row)
        target = self.thumbnail_rect(row)
        picture = self.source.pixmap(ref, target.size()) if ref else BROKEN
        if isinstance(picture, QPixmap):
            painter.drawPixmap(target, picture)
        else:
            painter.fillRect(target, PLACEHOLDER)
            if picture is BROKEN:
                painter.setPen(palette.mid().color())
                painter.drawText(target, Qt.AlignCenter, "no image")
        self._paint_caption(painter, row, cell, palette)

    def _paint_caption(self, painter: QPainter, row: int, cell: QRect, palette) -> None:
        """The episode's key, and a mark for each label it has (gold / distracted / other)."""
        data = self.model().row_data(row)
        if data is None:
            return
        key, counts = data[1], data[5]
        line = QRect(cell.left() + PAD, cell.top() + 2 * PAD + self.box.height(), cell.width() - 2 * PAD,
                     self.fontMetrics().height())
        present = [label for label in LABELS if counts.get(label)]
        x = line.right() - MARK + 1
        painter.setRenderHint(QPainter.Antialiasing, True)
        for label in reversed(present):
            painter.setPen(Qt.NoPen)
            painter.setBrush(label_color(label, self.palette_name))
            painter.drawEllipse(QRect(x, line.center().y() - MARK // 2, MARK, MARK))
            x -= MARK + 3
        painter.setRenderHint(QPainter.Antialiasing, False)
        text = line.adjusted(0, 0, -(MARK + 3) * len(present), 0)
        painter.setPen(palette.text().color())
        # the end of a key tells samples apart ("demo-search-05"): elide its start when the cell is narrow
        painter.drawText(text, Qt.AlignLeft | Qt.AlignVCenter,
                         self.fontMetrics().elidedText(str(key), Qt.ElideLeft, text.width()))

    def _ask_for_shown(self) -> None:
        shown = []
        for row in self.shown_rows():
            ref = self.source.screen(row)
            if ref is not None:
                shown.append((ref, thumb_size(ref, self.box)))
        self.source.want(shown)

    def viewportEvent(self, event) -> bool:
        if event.type() == QEvent.ToolTip:
            index = self.indexAt(event.pos())
            data = self.model().row_data(index.row()) if index.isValid() else None
            if data is None:
                QToolTip.hideText()
                return True
            counts = ", ".join(f"{data[5].get(label, 0)} {label}" for label in LABELS)
            QToolTip.showText(event.globalPos(), f"{data[1]}\n{data[2]}\n{counts}", self.viewport())
            return True
        return super().viewportEvent(event)


class ThumbnailGrid(QWidget):
    """The samples list's rows as thumbnails, with a size slider. `opened(episode id)`: Enter or a double
    click on a thumbnail (it was already chosen by the click: this asks to work on it)."""

    opened = Signal(int)

    def __init__(self, browser, palette: str = "default", parent=None, threads: int | None = None):
        super().__init__(parent)
        self.setObjectName("thumbnailGrid")
        self.browser = browser
        self.source = ThumbnailSource(browser.project, browser.model, threads, self)
        self.view = GridView(self.source, palette)
        self.view.setModel(browser.model)
        own = self.view.selectionModel()
        self.view.setSelectionModel(browser.table.selectionModel())  # one current sample for list and grid
        own.deleteLater()
        self.view.activated.connect(self._activated)

        self.slider = QSlider(Qt.Horizontal)
        self.slider.setRange(*SIDE_RANGE)
        self.slider.setSingleStep(16)
        self.slider.setPageStep(32)
        self.slider.setValue(DEFAULT_SIDE)
        self.slider.setToolTip("Thumbnail size")
        self.size_label = QLabel()
        self.slider.valueChanged.connect(self.set_side)

        bar = QHBoxLayout()
        bar.addWidget(QLabel("Size"))
        bar.addWidget(self.slider, 1)
        bar.addWidget(self.size_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(self.view, 1)
        self.set_side(DEFAULT_SIDE)

    @property
    def decodes(self) -> int:
        return self.source.decoder.count

    def columns(self) -> int:
        return self.view.columns()

    def set_side(self, side: int) -> None:
        """Resize the thumbnails, keeping the first row on show where it was."""
        first = self.view.shown_rows().start if self.view.model() else 0
        self.size_label.setText(f"{side} px")
        if self.slider.value() != side:
            self.slider.setValue(side)  # calls back here once, with the same side
            return
        self.view.set_side(side)
        if self.view.model() is not None and self.view.model().rowCount():
            self.view.scrollTo(self.view.model().index(first, 0), QAbstractItemView.PositionAtTop)

    def set_palette(self, palette: str) -> None:
        """The label marks' colours (Settings.palette)."""
        self.view.palette_name = palette
        self.view.viewport().update()

    def follow_browser(self) -> None:
        """Show the list's current row. The grid follows by itself, except after browser.select_episode,
        which moves the row with the selection model's signals blocked."""
        index = self.view.selectionModel().currentIndex()
        if index.isValid():
            self.view.scrollTo(index)
        self.view.viewport().update()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.follow_browser()  # the row may have moved while the grid was in a hidden tab

    def _activated(self, index: QModelIndex) -> None:
        episode_id = self.browser.model.episode_id_at(index.row())
        if episode_id is not None:
            self.opened.emit(episode_id)

    def shutdown(self) -> None:
        """Stop decoding (before the project closes)."""
        self.source.shutdown()
