"""A trajectory's frames: decoded off the UI thread into a small cache, painted with the agent's action
on them (a tap or click as a ring at its point, a swipe as an arrow from touch to lift; points are
normalised 0..1 of the image), in a big view and a strip of numbered thumbnails whose final frame
is larger and framed in colour (the frame a judge looks at).

    loader = FrameLoader(project)
    loader.frameReady.connect(lambda sha: ...)      # on the UI thread, once per decoded image
    loader.request([(sha, ext), ...])               # those not cached, in that order, in a Task
    loader.cache.get(sha)                           # Frame, or None while not decoded
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import shiboken6
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QObject, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QImage, QImageReader, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QHBoxLayout, QScrollArea, QSizePolicy, QWidget

from desktop_app.ui.tasks import Task

ACTION_COLOUR = QColor("#EE3377")  # Tol magenta: no box label uses it (gold green, distracted red)
FINAL_COLOUR = QColor("#EE7733")  # Tol orange: the border of the final frame
VIEW_MAX = 1600  # the big view's copy of an image is at most this long on its longer side
THUMB_DECODE = QSize(240, 150)  # thumbnails are kept at this size (the final frame is drawn larger)
THUMB = QSize(112, 96)  # the box a step's thumbnail fits in (16:10 -> 112 x 70, a phone -> 43 x 96)
FINAL_THUMB = QSize(176, 124)  # the final frame's
CAPTION = 34  # two lines under a thumbnail: the step's number, my label of it
SHORT = {"goal-reached": "reached", "towards-the-goal": "towards", "not-sure": "not sure",
         "away-from-the-goal": "away"}  # step labels under the thumbnails


@dataclass(frozen=True)
class Frame:
    image: QImage | None  # None: the image could not be read (error says why)
    thumb: QImage | None
    error: str = ""


def decode(read: Callable[[str, str], bytes], sha256: str, ext: str) -> Frame:
    """One image (any thread): the view copy and the thumbnail, or why there is none."""
    try:
        data = read(sha256, ext)
    except OSError:
        return Frame(None, None, f"image missing from the media folder ({sha256[:12]}.{ext})")
    buffer = QBuffer()
    buffer.setData(QByteArray(data))
    buffer.open(QIODevice.ReadOnly)
    reader = QImageReader(buffer)
    size = reader.size()
    if size.isValid() and max(size.width(), size.height()) > VIEW_MAX:
        reader.setScaledSize(size.scaled(QSize(VIEW_MAX, VIEW_MAX), Qt.KeepAspectRatio))
    image = reader.read()
    if image.isNull():
        return Frame(None, None, f"cannot read image {sha256[:12]}.{ext}: {reader.errorString()}")
    return Frame(image, image.scaled(THUMB_DECODE, Qt.KeepAspectRatio, Qt.SmoothTransformation))


class FrameCache:
    """The most recently used frames (about 6 MB each at most): the trajectory on screen and the next."""

    def __init__(self, capacity: int = 40):
        self.capacity = capacity
        self._frames: OrderedDict[str, Frame] = OrderedDict()
        self._lock = threading.Lock()  # the loader's threads put, the UI thread gets

    def get(self, sha256: str) -> Frame | None:
        with self._lock:
            frame = self._frames.get(sha256)
            if frame is not None:
                self._frames.move_to_end(sha256)
            return frame

    def put(self, sha256: str, frame: Frame) -> None:
        with self._lock:
            self._frames[sha256] = frame
            self._frames.move_to_end(sha256)
            while len(self._frames) > self.capacity:
                self._frames.popitem(last=False)

    def __contains__(self, sha256: str) -> bool:
        with self._lock:
            return sha256 in self._frames


_alive: set[Task] = set()  # running loads are kept here, not by a widget that may be deleted first


def wait_all() -> None:
    """Let every frame load end (closing a project, leaving the application)."""
    for task in list(_alive):
        task.wait()


class FrameLoader(QObject):
    frameReady = Signal(str)  # sha256 of a frame now in the cache

    def __init__(self, project, parent=None):
        super().__init__(parent)
        self.read = project.media.read
        self.cache = FrameCache()
        self._pending: set[str] = set()

    def request(self, images: list[tuple[str, str]]) -> None:
        todo = []
        for sha, ext in images:
            if sha not in self._pending and sha not in self.cache and (sha, ext) not in todo:
                todo.append((sha, ext))
        if not todo:
            return
        self._pending.update(sha for sha, _ in todo)
        read, cache = self.read, self.cache

        def work(progress) -> None:
            for i, (sha, ext) in enumerate(todo):
                cache.put(sha, decode(read, sha, ext))
                progress(sha, i + 1, len(todo))

        task = Task(work, wait=None)  # frames fill in as they come
        task.progress.connect(lambda sha, _done, _total: self._ready(sha))
        task.finished.connect(lambda _result: _alive.discard(task))
        task.failed.connect(lambda _exc: (_alive.discard(task), self._forget(todo)))
        _alive.add(task)
        task.start()

    def _ready(self, sha: str) -> None:
        if shiboken6.isValid(self):
            self._pending.discard(sha)
            self.frameReady.emit(sha)

    def _forget(self, todo) -> None:
        if shiboken6.isValid(self):
            self._pending.difference_update(sha for sha, _ in todo)


# -- painting -----------------------------------------------------------------------------
def fitted(size: QSize, area: QRectF) -> QRectF:
    """Where an image of `size` goes in `area`: as large as fits, centred, aspect kept."""
    if size.isEmpty():
        return QRectF(area)
    scale = min(area.width() / size.width(), area.height() / size.height())
    w, h = size.width() * scale, size.height() * scale
    return QRectF(area.center().x() - w / 2, area.center().y() - h / 2, w, h)


def draw_action(painter: QPainter, target: QRectF, points) -> None:
    """The action's points on an image drawn in `target`: one point a ring, two an arrow touch -> lift."""
    if not points:
        return
    size = max(target.width(), target.height())
    radius = max(5.0, 0.02 * size)
    width = max(2.0, 0.004 * size)
    at = [QPointF(target.left() + x * target.width(), target.top() + y * target.height()) for x, y in points[:2]]
    head = QPainterPath()
    if len(at) == 2:
        start, end = at
        angle = math.atan2(end.y() - start.y(), end.x() - start.x())
        head.addPolygon(QPolygonF([end, end - _polar(angle - 0.45, radius * 1.4),
                                   end - _polar(angle + 0.45, radius * 1.4)]))
        head.closeSubpath()
    painter.save()
    painter.setRenderHint(QPainter.Antialiasing)
    for colour, extra in ((QColor(255, 255, 255, 230), 3.0), (ACTION_COLOUR, 0.0)):  # a white halo first
        painter.setPen(QPen(colour, width + extra, Qt.SolidLine, Qt.RoundCap, Qt.RoundJoin))
        painter.setBrush(Qt.NoBrush)
        painter.drawEllipse(at[0], radius, radius)
        if len(at) == 2:
            painter.drawLine(start + _polar(angle, radius), end - _polar(angle, radius))  # ring's edge to the head
            painter.setBrush(colour)
            painter.drawPath(head)
    painter.setPen(Qt.NoPen)
    painter.setBrush(ACTION_COLOUR)
    painter.drawEllipse(at[0], width, width)  # the exact point
    painter.restore()


def _polar(angle: float, length: float) -> QPointF:
    return QPointF(math.cos(angle) * length, math.sin(angle) * length)


def paint_frame(painter: QPainter, area: QRectF, frame: Frame | None, points, thumb: bool = False) -> QRectF:
    """A frame fitted into `area` with its action drawn on it; a placeholder while loading or when the
    image is missing. Returns where the image went."""
    image = None if frame is None else (frame.thumb if thumb else frame.image)
    if image is None or image.isNull():
        painter.save()
        painter.setPen(QPen(QColor(128, 128, 128), 1, Qt.DashLine))
        painter.setBrush(QColor(128, 128, 128, 40))
        painter.drawRect(area.adjusted(0.5, 0.5, -0.5, -0.5))
        text = "Loading…" if frame is None else ("missing" if thumb else f"No image\n{frame.error}")
        painter.setPen(painter.pen().color().darker(110) if thumb else QColor(128, 128, 128))
        painter.drawText(area.adjusted(4, 4, -4, -4), Qt.AlignCenter | Qt.TextWordWrap, text)
        painter.restore()
        return QRectF(area)
    target = fitted(image.size(), area)
    painter.save()
    painter.setRenderHint(QPainter.SmoothPixmapTransform)
    painter.drawImage(target, image)
    painter.restore()
    draw_action(painter, target, points)
    return target


class FrameView(QWidget):
    """The selected frame, large, with the action drawn on it."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.frame: Frame | None = None
        self.points: tuple = ()
        self.empty_text = ""
        self.setMinimumSize(240, 160)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)

    def set_frame(self, frame: Frame | None, points=(), empty_text: str = "") -> None:
        self.frame, self.points, self.empty_text = frame, tuple(points), empty_text
        self.update()

    @property
    def missing(self) -> bool:
        """The frame was read and has no image (what the placeholder says)."""
        return self.frame is not None and self.frame.image is None

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        area = QRectF(self.rect()).adjusted(2, 2, -2, -2)
        if self.empty_text:
            painter.setPen(self.palette().placeholderText().color())
            painter.drawText(area, Qt.AlignCenter | Qt.TextWordWrap, self.empty_text)
            return
        paint_frame(painter, area, self.frame, self.points)


class StepThumb(QWidget):
    def __init__(self, strip: StepStrip, index: int, final: bool, aspect: float):
        super().__init__()
        self.strip, self.index, self.final = strip, index, final
        self.frame: Frame | None = None
        self.points: tuple = ()
        self.selected = False
        self.note = ""  # the step label, under the number
        box = FINAL_THUMB if final else THUMB
        if box.height() * aspect <= box.width():  # as tall as the box (a phone), else as wide
            image = QSize(round(box.height() * aspect), box.height())
        else:
            image = QSize(box.width(), round(box.width() / aspect))
        self.setFixedSize(max(image.width() + 12, 72), image.height() + CAPTION + 6)
        self.setCursor(Qt.PointingHandCursor)

    def mousePressEvent(self, event) -> None:
        self.strip.stepChosen.emit(self.index)

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.Antialiasing)
        palette = self.palette()
        inner = QRectF(6, 6, self.width() - 12, self.height() - CAPTION - 6)
        if self.selected:
            painter.setPen(Qt.NoPen)
            painter.setBrush(palette.highlight().color())
            painter.drawRoundedRect(QRectF(self.rect()), 6, 6)
        paint_frame(painter, inner, self.frame, self.points, thumb=True)
        if self.final:
            painter.setPen(QPen(FINAL_COLOUR, 4))
            painter.setBrush(Qt.NoBrush)
            painter.drawRect(inner.adjusted(-2, -2, 2, 2))
        font = QFont(self.font())
        font.setBold(self.final or self.selected)
        painter.setFont(font)
        painter.setPen(palette.highlightedText().color() if self.selected else palette.windowText().color())
        lines = (f"{self.index + 1}" + (" · final" if self.final else ""), SHORT.get(self.note, self.note))
        metrics = painter.fontMetrics()
        for i, line in enumerate(lines):
            painter.drawText(QRectF(2, self.height() - CAPTION + i * (CAPTION // 2), self.width() - 4, CAPTION // 2),
                             Qt.AlignCenter, metrics.elidedText(line, Qt.ElideRight, self.width() - 6))


class StepStrip(QScrollArea):
    """Numbered thumbnails of the steps, left to right; the final one larger and framed in orange."""

    stepChosen = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.thumbs: list[StepThumb] = []
        self.setWidgetResizable(True)
        self.setFocusPolicy(Qt.NoFocus)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAsNeeded)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setFixedHeight(FINAL_THUMB.height() + CAPTION + 6 + self.horizontalScrollBar().sizeHint().height() + 8)
        self._set_thumbs([])

    def _set_thumbs(self, aspects: list[float]) -> None:
        body = QWidget()
        row = QHBoxLayout(body)
        row.setContentsMargins(2, 2, 2, 2)
        row.setSpacing(4)
        self.thumbs = [StepThumb(self, i, i == len(aspects) - 1, a) for i, a in enumerate(aspects)]
        for thumb in self.thumbs:
            row.addWidget(thumb, 0, Qt.AlignBottom)
        row.addStretch(1)
        self.setWidget(body)

    def set_steps(self, steps: list[tuple[tuple, float]]) -> None:
        """One thumbnail per step: (its action's points, its image's width / height); frames arrive with
        set_frame."""
        self._set_thumbs([max(min(aspect, 3.0), 0.3) if aspect > 0 else 1.6 for _, aspect in steps])
        for thumb, (points, _aspect) in zip(self.thumbs, steps, strict=True):
            thumb.points = tuple(points)

    def set_frame(self, index: int, frame: Frame | None) -> None:
        if 0 <= index < len(self.thumbs):
            self.thumbs[index].frame = frame
            self.thumbs[index].update()

    def set_note(self, index: int, note: str) -> None:
        if 0 <= index < len(self.thumbs):
            self.thumbs[index].note = note
            self.thumbs[index].update()

    def set_current(self, index: int) -> None:
        for thumb in self.thumbs:
            thumb.selected = thumb.index == index
            thumb.update()
        if 0 <= index < len(self.thumbs):
            self.ensureWidgetVisible(self.thumbs[index], 40, 0)
