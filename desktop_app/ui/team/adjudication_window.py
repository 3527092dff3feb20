"""Adjudicate double-annotated samples: each annotator's version side by side on the step's screenshot,
then either take one version whole or merge boxes picked from the versions.

Left, the samples waiting for adjudication (api.awaiting_adjudication). Right, one read-only picture per
version (api.versions: boxes in their label's colour, captioned with the label), a checklist of that
version's boxes, and a "Take …'s version" button (api.adjudicate take=). Clicking a box on a picture or
ticking it in a checklist picks it; "Merge selected boxes" makes the picked boxes, from any version and
step, the sample's labels (api.adjudicate boxes=). A decided sample leaves the list and the next one is
shown; what the core refuses (versions not finished, a sample labelled once) is a red status line.

Keys: 1 / 2 take the first / second version, Down / Up move in the list.

    window = AdjudicationWindow(project, parent, lead="Ada")   # a window of its own
    window.show()
    window.show_sample(episode_id)                              # e.g. from the sample browser
    window.adjudicated.connect(lambda episode_id: workspace.reload())
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QIcon,
    QImageReader,
    QKeySequence,
    QPainter,
    QPen,
    QPixmap,
    QShortcut,
)
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGraphicsPixmapItem,
    QGraphicsScene,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app import api
from desktop_app.api.boxes import ActionBox
from desktop_app.api.projects import Project
from desktop_app.teams.adjudication import Version
from desktop_app.teams.views import SampleHead, StepScreen, sample_heads, version_screens
from desktop_app.ui.canvas.items import MissingImageItem
from desktop_app.ui.fit import open_at
from desktop_app.ui.palette import label_color
from desktop_app.ui.plain import PlainLabel
from desktop_app.ui.shortcuts import BY_ID, key_name
from desktop_app.ui.team.common import ERROR_COLOUR, RefreshedOnReshow
from desktop_app.ui.tool_window import EscapeCloses

HIT_SLACK_PX = 4  # a click this close outside a thin box still picks it
NOTHING_WAITS = ("No sample waits for adjudication.\n\nA sample appears here once both of its annotators "
                 "have marked their versions done.")


def escape_mnemonic(text: str) -> str:
    """A button shows '&' as a shortcut underline: a name like 'R&D' must stay as typed."""
    return text.replace("&", "&&")


def box_caption(box: ActionBox) -> str:
    return f"{box.label} · {box.element_text}" if box.element_text else box.label


class VersionView(QGraphicsView):
    """One version's boxes on the step's screenshot, always fitted to the view; a click picks a box."""

    boxClicked = Signal(int)

    def __init__(self, palette: str = "default", parent=None):
        super().__init__(parent)
        self.palette = palette
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.Antialiasing | QPainter.SmoothPixmapTransform)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setViewportUpdateMode(QGraphicsView.FullViewportUpdate)  # captions live in the foreground
        self.setFocusPolicy(Qt.NoFocus)  # keys belong to the window (1 / 2, Up / Down)
        self.setMinimumSize(260, 200)
        self.boxes: list[ActionBox] = []
        self.picked: set[int] = set()
        self.marks: list = []  # the boxes' rect items, redrawn when the picks change
        self.caption_font = QFont()
        self.caption_font.setPixelSize(11)

    def show_step(self, screen: StepScreen | None, boxes: list[ActionBox], picked: set[int]) -> None:
        scene = self.scene()
        scene.clear()
        self.marks = []
        self.boxes = [b for b in boxes if b.x1 is not None]  # a box without a position has nothing to draw
        self.picked = picked
        image = None
        reason = "This step has no screenshot"
        if screen is not None and screen.path is not None:
            reader = QImageReader(str(screen.path))
            image = reader.read()
            if image.isNull():
                reason = (f"Image missing from the media folder:\n{screen.path}" if not screen.path.exists()
                          else f"Cannot read image {screen.path.name}: {reader.errorString()}")
        if image is not None and not image.isNull():
            picture = QGraphicsPixmapItem(QPixmap.fromImage(image))
            picture.setTransformationMode(Qt.SmoothTransformation)
            scene.addItem(picture)
            rect = QRectF(0, 0, image.width(), image.height())
        else:
            width = screen.width if screen and screen.width else 1280
            height = screen.height if screen and screen.height else 800
            scene.addItem(MissingImageItem(width, height, reason))
            rect = QRectF(0, 0, width, height)
        scene.setSceneRect(rect)
        for box in self.boxes:
            self._add_box(box)
        self.fit()

    def _add_box(self, box: ActionBox) -> None:
        color = label_color(box.label, self.palette)
        chosen = box.id in self.picked
        pen = QPen(color, 4 if chosen else 2)
        pen.setCosmetic(True)  # the same width at every zoom
        fill = QColor(color)
        fill.setAlpha(70 if chosen else 0)
        rect = QRectF(QPointF(box.x1, box.y1), QPointF(box.x2, box.y2))
        item = self.scene().addRect(rect, pen, QBrush(fill))
        item.setToolTip(box_caption(box))
        self.marks.append(item)

    def set_picked(self, picked: set[int]) -> None:
        self.picked = picked
        for mark in self.marks:
            self.scene().removeItem(mark)
        self.marks = []
        for box in self.boxes:
            self._add_box(box)

    def fit(self) -> None:
        if not self.sceneRect().isEmpty():
            self.fitInView(self.sceneRect(), Qt.KeepAspectRatio)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit()

    def box_at(self, point: QPointF) -> int | None:
        """The smallest box under the point: with nested boxes the inner one is the one aimed at."""
        slack = HIT_SLACK_PX / max(self.transform().m11(), 1e-6)
        under = [b for b in self.boxes
                 if b.x1 - slack <= point.x() <= b.x2 + slack and b.y1 - slack <= point.y() <= b.y2 + slack]
        if not under:
            return None
        return min(under, key=lambda b: (b.x2 - b.x1) * (b.y2 - b.y1)).id

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.LeftButton:
            found = self.box_at(self.mapToScene(event.position().toPoint()))
            if found is not None:
                self.boxClicked.emit(found)
                return
        super().mousePressEvent(event)

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        painter.save()
        painter.resetTransform()  # captions in viewport pixels: readable however small the picture is
        painter.setFont(self.caption_font)
        metrics = QFontMetrics(self.caption_font)
        height = metrics.height() + 2
        for box in self.boxes:
            top_left = self.mapFromScene(QPointF(box.x1, box.y1))
            text = ("✓ " if box.id in self.picked else "") + box.label
            width = metrics.horizontalAdvance(text) + 6
            y = top_left.y() - height if top_left.y() - height >= 0 else top_left.y()
            painter.fillRect(top_left.x(), y, width, height, label_color(box.label, self.palette))
            painter.setPen(QColor("white"))
            painter.drawText(top_left.x() + 3, y + metrics.ascent() + 1, text)
        painter.restore()


class VersionPane(QFrame):
    """One annotator's version: name, picture, checklist of its boxes, and the button that takes it."""

    def __init__(self, version: Version, number: int, palette: str, several_steps: bool, parent=None):
        super().__init__(parent)
        self.version = version
        self.setFrameShape(QFrame.StyledPanel)
        count = sum(len(boxes) for boxes in version.boxes.values())
        self.title = PlainLabel(version.annotator, wordWrap=False)
        font = QFont(self.title.font())
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.title.setFont(font)
        self.detail = QLabel(f"{version.state} · {count} box{'' if count == 1 else 'es'}")
        self.detail.setStyleSheet("color: gray")
        head = QHBoxLayout()
        head.addWidget(self.title)
        head.addWidget(self.detail)
        head.addStretch(1)
        self.view = VersionView(palette)
        self.checklist = QListWidget()
        self.checklist.setFocusPolicy(Qt.NoFocus)
        self.checklist.setToolTip("Tick boxes (or click them on the picture) to merge them into the sample")
        for index in sorted(version.boxes):
            for box in version.boxes[index]:
                where = ("no position" if box.x1 is None else
                         f"{box.x1:.0f}, {box.y1:.0f} – {box.x2:.0f}, {box.y2:.0f}")
                step = f"step {index + 1} · " if several_steps else ""
                entry = QListWidgetItem(_swatch(label_color(box.label, palette)),
                                        f"{step}{box_caption(box)} ({where})")
                entry.setFlags(Qt.ItemIsEnabled | Qt.ItemIsUserCheckable)
                entry.setCheckState(Qt.Unchecked)
                entry.setData(Qt.UserRole, box.id)
                self.checklist.addItem(entry)
        if not count:
            entry = QListWidgetItem("no boxes: this annotator saw nothing to box")
            entry.setFlags(Qt.NoItemFlags)
            self.checklist.addItem(entry)
        self.take_button = QPushButton(escape_mnemonic(f"Take {version.annotator}'s version") +
                                       (f"  ({number})" if number <= 2 else ""))
        self.take_button.setToolTip("Make this version's boxes, on every step, the sample's labels"
                                    + (f" (key {number})" if number <= 2 else ""))
        layout = QVBoxLayout(self)
        layout.addLayout(head)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.checklist)
        layout.addWidget(self.take_button)

    def set_list_rows(self, rows: int) -> None:
        lists = self.checklist
        lists.setFixedHeight(rows * lists.sizeHintForRow(0) + 2 * lists.frameWidth() + 4)

    def box_ids(self) -> set[int]:
        return {b.id for boxes in self.version.boxes.values() for b in boxes}

    def set_checked(self, picked: set[int]) -> None:
        self.checklist.blockSignals(True)
        for row in range(self.checklist.count()):
            entry = self.checklist.item(row)
            box_id = entry.data(Qt.UserRole)
            if box_id is not None:
                entry.setCheckState(Qt.Checked if box_id in picked else Qt.Unchecked)
        self.checklist.blockSignals(False)


def _swatch(color: QColor) -> QIcon:
    pixmap = QPixmap(12, 12)
    pixmap.fill(color)
    return QIcon(pixmap)


class AdjudicationWindow(EscapeCloses, RefreshedOnReshow, QWidget):
    """adjudicated(episode_id) after each decision that was stored."""

    adjudicated = Signal(int)

    def __init__(self, project: Project, parent=None, lead: str | None = None, palette: str = "default"):
        super().__init__(parent)
        self.setWindowFlag(Qt.Window)  # its own window even with the main window as parent
        self.setWindowTitle("Adjudication")
        self.project = project
        self.lead = lead
        self.palette = palette
        self.heads: list[SampleHead] = []
        self.episode_id: int | None = None
        self.versions: list[Version] = []
        self.screens: dict[int, StepScreen] = {}
        self.picked: set[int] = set()
        self.panes: list[VersionPane] = []

        self.list = QListWidget()
        self.list.setWordWrap(True)  # a goal is read whole, not scrolled sideways
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.list.setSpacing(2)
        self.list.setFocusPolicy(Qt.NoFocus)  # Up / Down are the window's, whatever has the focus
        self.list.currentRowChanged.connect(self._row_chosen)
        self.list_title = QLabel()
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        left = QWidget()
        column = QVBoxLayout(left)
        column.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        head.addWidget(self.list_title, 1)
        head.addWidget(self.refresh_button)
        column.addLayout(head)
        column.addWidget(self.list, 1)
        hint = QLabel(f"{key_name('adjudication.prev')} / {key_name('adjudication.next')}: previous / next sample · "
                      f"{key_name('adjudication.take_first')} / {key_name('adjudication.take_second')}: take the "
                      "first / second version")
        hint.setWordWrap(True)
        hint.setStyleSheet("color: gray")
        column.addWidget(hint)

        self.sample_title = PlainLabel(wordWrap=False)
        font = QFont(self.sample_title.font())
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.2)
        self.sample_title.setFont(font)
        self.goal = PlainLabel()
        self.step_choice = QComboBox()
        self.step_choice.setFocusPolicy(Qt.NoFocus)
        self.step_choice.currentIndexChanged.connect(self._show_step)
        self.step_label = QLabel("Step:")
        steps = QHBoxLayout()
        steps.addWidget(self.step_label)
        steps.addWidget(self.step_choice, 1)
        self.panes_host = QWidget()
        self.panes_layout = QHBoxLayout(self.panes_host)
        self.panes_layout.setContentsMargins(0, 0, 0, 0)
        self.merge_button = QPushButton("Merge selected boxes")
        self.merge_button.setToolTip("Make the picked boxes, from any version and step, the sample's labels")
        self.merge_button.clicked.connect(self.merge)
        self.clear_button = QPushButton("Clear selection")
        self.clear_button.clicked.connect(lambda: self._set_picked(set()))
        actions = QHBoxLayout()
        actions.addStretch(1)
        actions.addWidget(self.clear_button)
        actions.addWidget(self.merge_button)
        sample = QWidget()
        column = QVBoxLayout(sample)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.sample_title)
        column.addWidget(self.goal)
        column.addLayout(steps)
        column.addWidget(self.panes_host, 1)
        column.addLayout(actions)
        self.nothing = QLabel(NOTHING_WAITS, wordWrap=True, alignment=Qt.AlignCenter)
        self.nothing.setStyleSheet("color: gray")
        self.right = QStackedWidget()
        self.right.addWidget(self.nothing)
        self.right.addWidget(sample)

        splitter = QSplitter(Qt.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self.right)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([320, 1000])
        splitter.setChildrenCollapsible(False)
        self.status = PlainLabel(wordWrap=True)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.status)

        for action_id, slot in (("adjudication.take_first", lambda: self.take_index(0)),
                                ("adjudication.take_second", lambda: self.take_index(1)),
                                ("adjudication.next", lambda: self.move(1)), ("adjudication.prev", lambda: self.move(-1))):
            for key in BY_ID[action_id].keys:  # the window's keys, from ui/shortcuts.py's table
                QShortcut(QKeySequence(key), self, activated=slot)
        open_at(self, 1320, 820)
        self.refresh()

    # the list ----------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Read the waiting samples again, keeping the one shown when it still waits."""
        try:
            self.heads = sample_heads(self.project, api.awaiting_adjudication(self.project))
        except Exception as exc:  # a lost server or a locked database: say so, keep what was shown
            self._say(f"Could not read the samples waiting for adjudication: {exc}", error=True)
            return
        keep = self.episode_id
        self.list.blockSignals(True)
        self.list.clear()
        for head in self.heads:
            entry = QListWidgetItem(f"{head.key}\n{head.goal}" if head.goal else head.key)
            entry.setData(Qt.UserRole, head.episode_id)
            entry.setToolTip(head.goal)
            self.list.addItem(entry)
        self.list.blockSignals(False)
        self._update_title()
        ids = self.waiting()
        if keep in ids:
            self._select_row(ids.index(keep))
        elif ids:
            self._select_row(0)
        else:
            self._clear_sample()

    def waiting(self) -> list[int]:
        return [head.episode_id for head in self.heads]

    def _update_title(self) -> None:
        n = len(self.heads)
        self.list_title.setText(f"{n} sample{'' if n == 1 else 's'} to adjudicate")

    def _select_row(self, row: int) -> None:
        if self.list.currentRow() == row:
            self._row_chosen(row)
        else:
            self.list.setCurrentRow(row)

    def _row_chosen(self, row: int) -> None:
        if 0 <= row < len(self.heads):
            self.show_sample(self.heads[row].episode_id)

    def move(self, delta: int) -> None:
        if self.heads:
            row = self.list.currentRow()
            self.list.setCurrentRow(min(max(row + delta, 0), len(self.heads) - 1) if row >= 0 else 0)

    # one sample --------------------------------------------------------------------------------
    def show_sample(self, episode_id: int) -> bool:
        """Show a sample's versions (also one not in the list, e.g. to adjudicate again). False, with the
        reason in the status line, when it cannot be shown (versions still blind, labelled once)."""
        ids = self.waiting()
        if episode_id in ids and self.list.currentRow() != ids.index(episode_id):
            self.list.setCurrentRow(ids.index(episode_id))  # comes back here through _row_chosen
            return self.episode_id == episode_id
        if episode_id not in ids:
            self.list.blockSignals(True)
            self.list.setCurrentRow(-1)
            self.list.blockSignals(False)
        try:
            versions = api.versions(self.project, episode_id)
            screens = version_screens(self.project, episode_id)
            heads = sample_heads(self.project, [episode_id])
        except Exception as exc:  # ValueError: still blind; anything else: the database is away
            self._clear_sample()
            self._say(str(exc), error=True)
            return False
        if not heads or len(versions) < 2:
            self._clear_sample()
            self._say(f"Sample {heads[0].key if heads else episode_id} was not labelled twice: there is "
                      "nothing to adjudicate", error=True)
            return False
        self.episode_id, self.versions, self.screens = episode_id, versions, screens
        head = heads[0]
        self.sample_title.setText(head.key)
        self.goal.setText(head.goal)
        self.goal.setVisible(bool(head.goal))
        self._build_panes()
        indices = sorted(screens) or [0]
        self.step_choice.blockSignals(True)
        self.step_choice.clear()
        for index in indices:
            instruction = screens[index].instruction if index in screens else ""
            text = f"Step {index + 1} of {len(indices)}" + (f" · {instruction}" if instruction else "")
            self.step_choice.addItem(text, index)
        self.step_choice.blockSignals(False)
        several = len(indices) > 1
        self.step_choice.setVisible(several)
        self.step_label.setVisible(several)
        self.right.setCurrentIndex(1)
        self._set_picked(set())
        self._show_step()
        self._say("")
        return True

    def _build_panes(self) -> None:
        for pane in self.panes:
            self.panes_layout.removeWidget(pane)
            pane.deleteLater()
        several = len(self.screens) > 1
        self.panes = [VersionPane(v, n, self.palette, several) for n, v in enumerate(self.versions, start=1)]
        # every checklist as tall as the longest (up to six rows, then they scroll): blank rows would only
        # shrink the pictures, and equal lists keep the pictures at one scale, side by side
        rows = min(max((p.checklist.count() for p in self.panes), default=1), 6)
        for pane in self.panes:
            pane.set_list_rows(rows)
            pane.view.boxClicked.connect(self.toggle_box)
            pane.checklist.itemChanged.connect(self._ticked)
            pane.take_button.clicked.connect(lambda _=False, who=pane.version.annotator: self.take(who))
            self.panes_layout.addWidget(pane, 1)

    def step_index(self) -> int:
        index = self.step_choice.currentData()
        return 0 if index is None else int(index)

    def _show_step(self) -> None:
        index = self.step_index()
        for pane in self.panes:
            pane.view.show_step(self.screens.get(index), pane.version.boxes.get(index, []), self.picked)

    def _clear_sample(self) -> None:
        self.episode_id, self.versions, self.screens = None, [], {}
        self._build_panes()
        self.picked = set()
        self.right.setCurrentIndex(0)
        self._update_merge()

    # picking boxes -----------------------------------------------------------------------------
    def toggle_box(self, box_id: int) -> None:
        self._set_picked(self.picked ^ {box_id})

    def _ticked(self, entry: QListWidgetItem) -> None:
        box_id = entry.data(Qt.UserRole)
        if box_id is None:
            return
        ticked = entry.checkState() == Qt.Checked
        self._set_picked(self.picked | {box_id} if ticked else self.picked - {box_id})

    def _set_picked(self, picked: set[int]) -> None:
        self.picked = set(picked)
        for pane in self.panes:
            pane.set_checked(self.picked)
            pane.view.set_picked(self.picked)
        self._update_merge()

    def _update_merge(self) -> None:
        n = len(self.picked)
        self.merge_button.setText(f"Merge {n} selected box{'' if n == 1 else 'es'}" if n else
                                  "Merge selected boxes")
        self.merge_button.setEnabled(bool(n))
        self.clear_button.setEnabled(bool(n))

    def picked_in_order(self) -> list[int]:
        """The picked boxes in the versions' order (annotator, step, box), so the merge is reproducible."""
        return [b.id for v in self.versions for index in sorted(v.boxes) for b in v.boxes[index]
                if b.id in self.picked]

    # deciding ----------------------------------------------------------------------------------
    def take_index(self, number: int) -> None:
        if number < len(self.versions):
            self.take(self.versions[number].annotator)

    def take(self, annotator: str) -> bool:
        version = next((v for v in self.versions if v.annotator == annotator), None)
        count = sum(len(b) for b in version.boxes.values()) if version else 0
        return self._decide(dict(take=annotator), f"Took {annotator}'s version: {count} "
                                                  f"box{'' if count == 1 else 'es'} written")

    def merge(self) -> bool:
        boxes = self.picked_in_order()
        if not boxes:
            self._say("Pick the boxes to keep first: click them on the pictures or tick them in the lists",
                      error=True)
            return False
        return self._decide(dict(boxes=boxes), f"Merged {len(boxes)} box{'' if len(boxes) == 1 else 'es'} "
                                               "from the versions")

    def _decide(self, choice: dict, done: str) -> bool:
        episode_id = self.episode_id
        if episode_id is None:
            return False
        key = self.sample_title.text()
        try:
            api.adjudicate(self.project, episode_id, lead=self.lead, **choice)
        except Exception as exc:  # ValueError: the core refused; anything else: nothing was stored
            self._say(f"{key}: {exc}", error=True)
            return False
        row = self.list.currentRow()
        self.episode_id = None  # the next refresh moves on instead of keeping this sample
        self.heads = [h for h in self.heads if h.episode_id != episode_id]
        self.list.blockSignals(True)
        if 0 <= row < self.list.count() and self.list.item(row).data(Qt.UserRole) == episode_id:
            self.list.takeItem(row)
        self.list.blockSignals(False)
        self._update_title()
        if self.heads:
            self._select_row(min(max(row, 0), len(self.heads) - 1))
        else:
            self._clear_sample()
        self._say(f"{key}: {done}.")
        self.adjudicated.emit(episode_id)
        return True

    def _say(self, text: str, error: bool = False) -> None:
        self.status.setStyleSheet(f"color: {ERROR_COLOUR}" if error else "")
        self.status.setText(text)
