"""The sample browser: episodes as a table that pages from the database.

The model knows only the row count and the pages it has been asked for, so a
project of 100,000 episodes opens as fast as one of ten.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from PySide6.QtCore import QAbstractTableModel, QEvent, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QVBoxLayout,
    QWidget,
)

from desktop_app.api import samples
from desktop_app.api.boxes import classes
from desktop_app.api.projects import Project, is_connection_lost
from desktop_app.api.samples import EPISODE_REVIEW_STATUSES, WORK_STATES, EpisodeFilter
from desktop_app.teams.views import queue_choices
from desktop_app.ui.fit import fit_combo
from desktop_app.ui.model_roles import RolesInOneCall
from desktop_app.ui.sample_table import SampleTable
from desktop_app.ui.tasks import run_in_background

PAGE = 200
MAX_PAGES = 64
# From this many episodes (the largest id, read at once) a filter's rows are counted off the UI thread: the
# first page shows at once and the rest of the list joins when counted (1,000,000 episodes under a label
# filter: 0.65 s of counting; benchmarks/project_1m.py). The same walk notes the id each page starts at, so a
# jump deep into the list reads its page by the index. Smaller projects count at once, as before.
COUNT_IN_BACKGROUND_FROM = 100_000
COLUMNS = ("Id", "Goal", "Scenario", "Status", "Actions", "State", "Assignee")
# what the header's menu says of each column (right-click on the header: which columns to show)
COLUMN_HELP = {"Id": "the file name, or the episode's id", "Goal": "the user's goal", "Scenario": "the kind of "
               "distraction", "Status": "the sample's review status", "Actions": "boxes per label (gold, distracted, "
               "other)", "State": "where the annotation stands", "Assignee": "who works on it"}
# shown until the user chooses (the file name, where it stands, who works on it): with the names taking what the
# others leave (ui/sample_table.py), they fit a 400 px dock side by side
DEFAULT_COLUMNS = ("Id", "Goal", "State", "Assignee")
FINISHED = ("done", "skipped", "accepted")  # states "Done, next unlabelled" moves past
LOOK_AHEAD = 5 * PAGE  # rows it reads at most to find one (pages read as scrolling reads them)
WAITING_MARK = "… importing"  # the State of a folder's picture not imported yet
STATE_MARKS = {"to do": "○ to do", "unlabelled": "○ unlabelled", "in progress": "◐ in progress", "done": "● done",
               "skipped": "⊘ skipped", "returned": "↩ returned", "accepted": "✔ accepted"}


class EpisodeTableModel(RolesInOneCall, QAbstractTableModel):
    counted = Signal()  # the whole count arrived after a refresh that showed the first page only

    def __init__(self, project: Project, parent=None, annotator: str | None = None,
                 count_in_background_from: int = COUNT_IN_BACKGROUND_FROM):
        super().__init__(parent)
        self.project = project
        self.annotator = annotator  # whose annotation state the State column shows
        self.filter = EpisodeFilter()
        self._count = 0
        self._pages: OrderedDict[int, list[tuple]] = OrderedDict()
        self._background_from = count_in_background_from
        self._counting = 0  # the refresh whose count is awaited (0: none); an older one's count is dropped
        self._starts: list[int] = []  # the first id of each page, when counted in the background
        self._refreshes = 0
        # a folder's pictures still to import (folder_wiring): listed after the project's rows, greyed and not
        # selectable, when the list shows every sample; the import turns them into rows batch by batch
        self._waiting: Sequence[str] = ()
        self._tail: list[str] = []
        self.refresh()

    # paging -----------------------------------------------------------------
    def set_filter(self, flt: EpisodeFilter) -> None:
        self.filter = flt
        self.refresh()

    @property
    def counting(self) -> bool:
        """The list holds the first page while the rest is counted (a big project)."""
        return self._counting != 0

    @property
    def stored_rows(self) -> int:
        """The rows that are samples of the project (those after them are pictures still being imported)."""
        return self._count

    def _tail_for(self, waiting: Sequence[str]) -> list[str]:
        return list(waiting) if self.filter == EpisodeFilter() else []  # a filter's rows are known once stored

    def refresh(self) -> None:
        self.beginResetModel()
        self._tail = self._tail_for(self._waiting)
        self._pages.clear()
        self._starts = []
        self._refreshes += 1
        self._counting = 0
        # one session: the whole count (a small project), or the first page (a big one, counted below)
        start = samples.list_start(self.project, self.filter, PAGE, self.annotator, self._background_from)
        self._count = start.count
        if start.first_page is not None:
            self._pages[0] = start.first_page
        if not start.whole:  # more than a page: count the rest off the UI thread
            self._counting = self._refreshes
        self.endResetModel()
        if self._counting:
            token, flt = self._counting, self.filter
            run_in_background(self, lambda: self._count_rows(flt), lambda n: self._counted(token, n),
                              lambda _exc: self._counted(token, None), wait="Counting samples")

    def _count_rows(self, flt: EpisodeFilter) -> tuple[int, list[int]]:
        return samples.page_starts(self.project, flt, PAGE)

    def _counted(self, token: int, counted: tuple[int, list[int]] | None) -> None:
        if token != self._counting:  # a later refresh (another filter) took its place
            return
        self._counting = 0
        count, self._starts = counted if counted is not None else (None, [])
        # the rows counted join before a folder's waiting pictures, which take what grow() left them meanwhile
        self._settle(max(count or 0, self._count), self._tail_for(self._waiting))
        self.counted.emit()

    def grow(self, waiting: Sequence[str] | None = None) -> None:
        """Rows were added at the end (a folder's import landing; the list is in id order): insert them, so
        the selection and the scroll stay where the user left them. Anything else is a refresh. `waiting`: the
        pictures still to import, listed after them (None: as before; empty: none any more)."""
        if waiting is not None:
            self._waiting = waiting
        if self._counting:  # the count on its way will hold them
            return
        count = samples.count_samples(self.project, self.filter)
        if count < self._count:
            self.refresh()
            return
        self._settle(count, self._tail_for(self._waiting))

    def _settle(self, count: int, tail: list[str]) -> None:
        """`count` stored rows (as many as before or more) and then `tail`, told to the views: the first waiting
        rows became samples (or went: a repeated or unreadable picture is not imported); the rows the list
        gains or loses are counted at its end, and every row from the first that changed is told it did."""
        if count == self._count and tail == self._tail:
            return
        for number in [n for n in self._pages if n >= self._count // PAGE]:  # the last page was short
            del self._pages[number]
        before, stored_before = self._count + len(self._tail), self._count
        after = count + len(tail)
        if after < before:
            self.beginRemoveRows(QModelIndex(), after, before - 1)
        elif after > before:
            self.beginInsertRows(QModelIndex(), before, after - 1)
        self._count, self._tail = count, tail
        if after < before:
            self.endRemoveRows()
        elif after > before:
            self.endInsertRows()
        last = min(before, after) - 1  # the rows kept from the first that may show something else now
        if last >= stored_before:
            self.dataChanged.emit(self.index(stored_before, 0), self.index(last, len(COLUMNS) - 1))

    def invalidate_rows(self) -> None:
        """Cached pages are stale (an edit changed counts or goals): drop them, keep the count."""
        self._pages.clear()
        if self._count:
            self.dataChanged.emit(self.index(0, 0), self.index(self._count - 1, len(COLUMNS) - 1))

    def _page(self, number: int) -> list[tuple]:
        page = self._pages.get(number)
        if page is not None:
            self._pages.move_to_end(number)
            return page
        before = self._pages.get(number - 1)
        if before:  # the page after one already read (scrolling down, the next screen): found by the index
            page = samples.sample_rows(self.project, self.filter, 0, PAGE, self.annotator, after_id=before[-1][0])
        elif number < len(self._starts):  # a jump, in a list counted in the background: found by the index
            page = samples.sample_rows(self.project, self.filter, 0, PAGE, self.annotator,
                                       after_id=self._starts[number] - 1)
        else:
            page = samples.sample_rows(self.project, self.filter, number * PAGE, PAGE, self.annotator)
        self._pages[number] = page
        while len(self._pages) > MAX_PAGES:
            self._pages.popitem(last=False)
        return page

    def row_data(self, row: int) -> tuple | None:
        if not 0 <= row < self._count:
            return None
        page = self._page(row // PAGE)
        offset = row % PAGE
        return page[offset] if offset < len(page) else None

    def episode_id_at(self, row: int) -> int | None:
        data = self.row_data(row)
        return data[0] if data else None

    def row_of(self, episode_id: int) -> int | None:
        """Position of an episode under the current filter (None if filtered out)."""
        return samples.position_of(self.project, self.filter, episode_id)

    # Qt model ---------------------------------------------------------------
    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self._count + len(self._tail)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if role == Qt.DisplayRole:
            return COLUMNS[section] if orientation == Qt.Horizontal else str(section + 1)
        if role == Qt.ToolTipRole and orientation == Qt.Horizontal:
            return f"{COLUMN_HELP[COLUMNS[section]]} (right-click: choose the columns)"
        return None

    # no flags() here: a Python flags() is called for every row of the list each time its header lays out
    # (10,000 calls for 2,000 rows); a waiting row is drawn greyed instead, and the browser never selects one
    def data(self, index: QModelIndex, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        if index.row() >= self._count:
            return self._waiting_cell(index.row() - self._count, index.column(), role)
        if role not in (Qt.DisplayRole, Qt.ToolTipRole):
            return None
        try:
            row = self.row_data(index.row())
        except Exception as exc:
            if not is_connection_lost(exc):
                raise
            return None  # the server is away (the banner says so): a blank cell, read again on the next paint
        if row is None:
            return None
        _, key, goal, scenario, status, counts, state, people, skipped = row
        column = index.column()
        if column == 6:
            return people
        if column == 5:
            if role == Qt.ToolTipRole:
                return f"{state}" + (f" · {people}" if people else "") + (f"\n{skipped}" if skipped else "")
            return STATE_MARKS.get(state, state)
        if column == 4:
            text = " ".join(f"{counts.get(k, 0)}{k[0]}" for k in ("gold", "distracted", "other"))
            if role == Qt.ToolTipRole:
                return ", ".join(f"{counts.get(k, 0)} {k}" for k in ("gold", "distracted", "other"))
            return text
        value = (key, goal, scenario, status)[column]
        return value

    def _waiting_cell(self, position: int, column: int, role):
        if not 0 <= position < len(self._tail):
            return None
        if role == Qt.ForegroundRole:
            return QGuiApplication.palette().brush(QPalette.Disabled, QPalette.Text)
        if role == Qt.ToolTipRole:
            return f"{self._tail[position]}: being imported; it opens once it is in ({len(self._tail):,} to go)"
        if role != Qt.DisplayRole:
            return None
        return self._tail[position] if column == 0 else WAITING_MARK if column == 5 else None


def outcome_of(key: str | None) -> tuple:
    """Combo data "verdict|3|distracted" -> ("verdict", 3, "distracted") (Qt compares strings, not tuples)."""
    if not key:
        return ()
    kind, *rest = key.split("|")
    return (kind, *[int(v) if v.isdigit() else v for v in rest])


class SampleBrowser(QWidget):
    episodeSelected = Signal(object)  # episode id or None
    columnsChosen = Signal(list)  # the names of the columns shown, after the user chose in the header's menu
    # Tab (+1) / Shift+Tab (-1) pressed in the list: the list has no use for them, and an annotator who just
    # picked a screen there means the screen's boxes (the canvas's Tab), not the next widget
    boxStep = Signal(int)

    def __init__(self, project: Project, parent=None, annotator: str | None = None,
                 columns: list[str] | tuple[str, ...] | None = None):
        super().__init__(parent)
        self.setObjectName("browser")
        self.project = project
        self.annotator = annotator
        self.model = EpisodeTableModel(project, self, annotator)
        self.model.counted.connect(self._update_count)  # a big project's count arrives after its first page

        self.search = QLineEdit(placeholderText="Search goals, ids and box texts...")
        self.search.setClearButtonEnabled(True)
        self.scenario = QComboBox()
        self.status = QComboBox()
        self.has = QComboBox()
        self.has.setToolTip("Samples with a box of this role (what scoring reads), or with or without boxes")
        self.klass = QComboBox()  # a box's class (ADR 0047), beside its role
        self.klass.setToolTip("Samples with a box of this class (Edit > Classes of this project…)")
        self.split = QComboBox()
        self.outcome = QComboBox()
        self.outcome.setToolTip("Show only episodes where an agent run went a certain way")
        self.work_state = QComboBox()
        self.work_state.setToolTip("Where the annotation stands (yours, in a queue; everyone's otherwise)")
        self.work_state.addItem("Any state", None)
        for state in WORK_STATES:
            self.work_state.addItem(state.capitalize(), state)
        self.queue = QComboBox()
        self.queue.setToolTip("Everyone's samples, or one annotator's queue (their blind copies included)")
        self.changed_by = QComboBox()
        self.changed_by.setToolTip("Samples this person changed (the last edit, or any box they drew)")
        self.changed_within = QComboBox()
        for text, days in (("Changed any time", None), ("Changed today", 1), ("Changed in 7 days", 7),
                           ("Changed in 30 days", 30)):
            self.changed_within.addItem(text, days)
        self.has.addItem("Any actions", None)
        for text, value in (("Has gold", "gold"), ("Has distracted", "distracted"), ("Has other", "other"),
                            ("Has boxes", True), ("No boxes", False)):
            self.has.addItem(text, value)
        self.status.addItem("Any status", None)
        for status in EPISODE_REVIEW_STATUSES:
            self.status.addItem(status.capitalize(), status)
        self.reload_choices()
        self.reload_classes()
        self.reload_outcomes()
        self.reload_queues()

        self.table = SampleTable(COLUMNS)
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)  # no per-row measuring at 100k rows
        header = self.table.horizontalHeader()
        header.setContextMenuPolicy(Qt.CustomContextMenu)
        header.customContextMenuRequested.connect(self._column_menu)
        self.column_menu: QMenu | None = None  # the header's menu while it is open
        self.show_columns(columns or DEFAULT_COLUMNS)
        self.table.setFocusPolicy(Qt.ClickFocus)
        self.table.installEventFilter(self)
        self.count_label = QLabel(wordWrap=True)  # "· <the bar clicked in the dashboard> show all" may be long
        self.count_label.linkActivated.connect(lambda _: self.clear_pinned())
        self.pinned: tuple[tuple[int, ...], str] | None = None

        # split, scenario, run and annotator names are the data's: the filters never widen the panel for them
        for combo in (self.scenario, self.status, self.has, self.klass, self.split, self.outcome, self.queue,
                      self.work_state, self.changed_by, self.changed_within):
            fit_combo(combo, 10)
        filters = QHBoxLayout()
        for widget in (self.scenario, self.status):
            filters.addWidget(widget)
        filters2 = QHBoxLayout()
        for widget in (self.has, self.klass):
            filters2.addWidget(widget)
        filters3 = QHBoxLayout()
        for widget in (self.split, self.outcome):
            filters3.addWidget(widget)
        filters4 = QHBoxLayout()
        for widget in (self.queue, self.work_state):
            filters4.addWidget(widget)
        filters5 = QHBoxLayout()
        for widget in (self.changed_by, self.changed_within):
            filters5.addWidget(widget)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.search)
        layout.addLayout(filters)
        layout.addLayout(filters2)
        layout.addLayout(filters3)
        layout.addLayout(filters4)
        layout.addLayout(filters5)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.count_label)

        self._debounce = QTimer(self, singleShot=True, interval=250)
        self._debounce.timeout.connect(self.apply_filter)
        self.search.textChanged.connect(self._debounce.start)
        for combo in (self.scenario, self.status, self.has, self.klass, self.split, self.outcome, self.queue,
                      self.work_state, self.changed_by, self.changed_within):
            combo.currentIndexChanged.connect(self.apply_filter)
        self.table.selectionModel().currentRowChanged.connect(self._row_changed)
        if self.current_filter() != self.model.filter:  # the list starts on the person's own queue
            self.model.set_filter(self.current_filter())
        self._update_count()

    # columns ------------------------------------------------------------------
    def shown_columns(self) -> list[str]:
        return [name for column, name in enumerate(COLUMNS) if not self.table.isColumnHidden(column)]

    def show_columns(self, names) -> None:
        """Show these columns (names of COLUMNS; unknown ones are ignored, and none known means the default)."""
        wanted = {n for n in names if n in COLUMNS} or set(DEFAULT_COLUMNS)
        for column, name in enumerate(COLUMNS):
            self.table.setColumnHidden(column, name not in wanted)
        self.table.fit_columns()

    def _column_menu(self, pos) -> None:
        """Right-click on the header: every column with a tick, to show or hide it (the last one stays)."""
        menu = QMenu(self)
        shown = self.shown_columns()
        for name in COLUMNS:
            action = menu.addAction(f"{name}: {COLUMN_HELP[name]}")
            action.setCheckable(True)
            action.setChecked(name in shown)
            action.setEnabled(shown != [name])
            action.toggled.connect(lambda on, name=name: self._toggle_column(name, on))
        menu.setAttribute(Qt.WA_DeleteOnClose)
        self.column_menu = menu
        menu.popup(self.table.horizontalHeader().mapToGlobal(pos))

    def _toggle_column(self, name: str, on: bool) -> None:
        shown = set(self.shown_columns()) | {name} if on else set(self.shown_columns()) - {name}
        self.show_columns([n for n in COLUMNS if n in shown])
        self.columnsChosen.emit(self.shown_columns())

    def reload_choices(self) -> None:
        found = samples.filter_choices(self.project)
        choices = ((self.scenario, "Any scenario", found.scenarios), (self.split, "Any split", found.splits))
        for combo, label, values in choices:
            current = combo.currentData()
            combo.blockSignals(True)
            combo.clear()
            combo.addItem(label, None)
            for value in values:
                combo.addItem(value or "(none)", value)
            index = combo.findData(current)
            combo.setCurrentIndex(max(index, 0))
            combo.blockSignals(False)

    def reload_classes(self) -> None:
        """The project's classes (after Edit > Classes of this project or an import added some)."""
        current = self.klass.currentData()
        self.klass.blockSignals(True)
        self.klass.clear()
        self.klass.addItem("Any class", None)
        for name in classes(self.project):
            self.klass.addItem(f"Class {name}", name)
            self.klass.setItemData(self.klass.count() - 1, name, Qt.ToolTipRole)
        index = self.klass.findData(current) if current is not None else 0
        self.klass.setCurrentIndex(max(index, 0))
        self.klass.setEnabled(self.klass.count() > 1)
        self.klass.blockSignals(False)
        if current is not None and index < 0:  # its class was removed: the list no longer filters by it
            self.apply_filter()

    def reload_outcomes(self) -> None:
        """Outcome filters for the latest runs: their distracted / invalid / wrong-format cases, and
        where the two latest runs disagree."""
        runs = samples.latest_runs(self.project, 6)
        current = self.outcome.currentData()
        self.outcome.blockSignals(True)
        self.outcome.clear()
        self.outcome.addItem("Any outcome", None)
        for run_id, name in runs:
            for verdict in ("distracted", "invalid", "gold"):
                self.outcome.addItem(f"Run {run_id} ({name}): {verdict}", f"verdict|{run_id}|{verdict}")
            self.outcome.addItem(f"Run {run_id} ({name}): wrong format", f"wrong_format|{run_id}")
        if len(runs) >= 2:
            (a, _), (b, _) = runs[1], runs[0]
            self.outcome.addItem(f"Runs {a} and {b} disagree", f"disagree|{a}|{b}")
        self.outcome.setCurrentIndex(max(self.outcome.findData(current), 0))
        self.outcome.blockSignals(False)

    def set_annotator(self, name: str) -> None:
        """The person working renamed themself (Settings, a folder project): the State column and "My queue"
        follow the new name, and a list showing their queue shows it under that name."""
        old, self.annotator = self.annotator, name
        self.model.annotator = name
        was_mine = self.queue.currentData() == old
        self.reload_queues()
        if was_mine:
            self.queue.setCurrentIndex(max(self.queue.findData(name), 0))
        self.apply_filter()

    def reload_queues(self) -> None:
        """The lists this person may see (teams/views.queue_choices): their own queue, and for a lead or
        reviewer everyone's samples and each annotator's queue. The first time, their queue when they have
        work in it."""
        choices = queue_choices(self.project)
        first = self.queue.count() == 0
        current = (choices.me if choices.start_mine else None) if first else self.queue.currentData()
        self.queue.blockSignals(True)
        self.queue.clear()
        if choices.everyone:
            self.queue.addItem("Everyone's samples", None)
        self.queue.addItem(f"My queue ({choices.me})", choices.me)
        for name in choices.others:
            self.queue.addItem(f"{name}'s queue", name)
        self.queue.setCurrentIndex(max(self.queue.findData(current), 0))
        self.queue.setEnabled(self.queue.count() > 1)
        self.queue.blockSignals(False)
        people = samples.editors(self.project)
        current = self.changed_by.currentData()
        self.changed_by.blockSignals(True)
        self.changed_by.clear()
        self.changed_by.addItem("Changed by anyone", None)
        for name in people:
            self.changed_by.addItem(f"Changed by {name}", name)
        self.changed_by.setCurrentIndex(max(self.changed_by.findData(current), 0))
        self.changed_by.blockSignals(False)

    def show_ids(self, ids: list[int], label: str) -> None:
        """Narrow the list to these episodes (a bar clicked in the dashboard)."""
        self.pinned = (tuple(ids), label)
        self.apply_filter()

    def current_filter(self) -> EpisodeFilter:
        has = self.has.currentData()
        pinned = self.pinned[0] if self.pinned else ()
        return EpisodeFilter(
            scenarios=(self.scenario.currentData(),) if self.scenario.currentData() is not None else (),
            review_statuses=(self.status.currentData(),) if self.status.currentData() else (),
            splits=(self.split.currentData(),) if self.split.currentData() is not None else (),
            has_label=has if isinstance(has, str) else None,
            classes=(self.klass.currentData(),) if self.klass.currentData() is not None else (),
            has_boxes=has if isinstance(has, bool) else None,
            text=self.search.text().strip(),
            outcome=outcome_of(self.outcome.currentData()),
            ids=pinned,
            work_states=(self.work_state.currentData(),) if self.work_state.currentData() else (),
            assignee=self.queue.currentData(),
            changed_by=self.changed_by.currentData(),
            changed_since=(datetime.now(UTC) - timedelta(days=self.changed_within.currentData())
                           if self.changed_within.currentData() else None),
        )

    def apply_filter(self) -> None:
        current = self.current_episode_id()
        self.model.set_filter(self.current_filter())
        self._update_count()
        row = self.model.row_of(current) if current is not None else None
        self.select_row(row if row is not None else 0)

    def grow(self, waiting: Sequence[str] | None = None) -> None:
        """Samples were added (a folder's import): the list takes them in; with none chosen yet, the first.
        `waiting`: the folder's pictures still to import, listed after them (EpisodeTableModel.grow)."""
        self.model.grow(waiting)
        self._update_count()
        if self.current_row() < 0 and self.model.stored_rows:
            self.select_row(0)

    def refresh(self) -> None:
        """Re-query the list (statuses changed); the filter stays."""
        self.model.refresh()
        self._update_count()

    def _update_count(self) -> None:
        n = self.model.stored_rows
        text = f"{n:,} episode{'s' if n != 1 else ''}"
        if self.model.counting:
            text = f"{n:,}+ episodes (counting...)"
        elif (waiting := self.model.rowCount() - n) > 0:
            text += f" · {waiting:,} being imported"
        if self.pinned:
            text += f" · {self.pinned[1]} <a href='clear'>show all</a>"
        self.count_label.setText(text)

    def clear_pinned(self) -> None:
        self.pinned = None
        self.apply_filter()

    def _row_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        if current.isValid() and current.row() >= self.model.stored_rows:  # a picture still being imported
            back = previous.row() if previous.isValid() and previous.row() < self.model.stored_rows else -1
            QTimer.singleShot(0, self, lambda: self._back_to(back))
            return
        self.episodeSelected.emit(self.model.episode_id_at(current.row()) if current.isValid() else None)

    def _back_to(self, row: int) -> None:
        """Back from a waiting row to the one the user was on, which stays open as it is (nothing reloads)."""
        if row < 0:
            self.select_row(self.model.stored_rows - 1)
            return
        self._select_quietly(row)
        self.table.viewport().update()  # the selection model said nothing: the highlight is drawn here

    def _select_quietly(self, row: int) -> None:
        """The row selected without telling anyone (what it shows is open already)."""
        selection = self.table.selectionModel()
        selection.blockSignals(True)
        self.select_row(row)
        selection.blockSignals(False)

    def current_row(self) -> int:
        index = self.table.selectionModel().currentIndex()
        return index.row() if index.isValid() else -1

    def eventFilter(self, watched, event) -> bool:
        if (watched is self.table and event.type() == QEvent.KeyPress
                and event.key() in (Qt.Key_Tab, Qt.Key_Backtab) and not event.modifiers() & Qt.ControlModifier):
            self.boxStep.emit(-1 if event.key() == Qt.Key_Backtab else 1)
            return True
        return super().eventFilter(watched, event)

    def current_episode_id(self) -> int | None:
        row = self.current_row()
        return self.model.episode_id_at(row) if row >= 0 else None

    def select_row(self, row: int) -> None:
        count = self.model.stored_rows  # not a picture still being imported: there is nothing to open yet
        if count == 0:
            self.episodeSelected.emit(None)
            return
        row = min(max(row, 0), count - 1)
        index = self.model.index(row, 0)
        self.table.selectionModel().setCurrentIndex(
            index, self.table.selectionModel().SelectionFlag.ClearAndSelect | self.table.selectionModel().SelectionFlag.Rows)
        self.table.scrollTo(index)

    def show_episode(self, episode_id: int) -> None:
        """Bring an episode into view and select it (emitting the selection): in the list as filtered, else in
        the person's own queue with no other filter (where their private copies are listed)."""
        if self.model.row_of(episode_id) is None:
            mine = self.queue.findData(queue_choices(self.project).me)
            for combo in (self.scenario, self.status, self.has, self.klass, self.split, self.outcome,
                          self.work_state, self.changed_by, self.changed_within, self.queue):
                combo.blockSignals(True)
                combo.setCurrentIndex(mine if combo is self.queue else 0)
                combo.blockSignals(False)
            self.search.blockSignals(True)
            self.search.clear()
            self.search.blockSignals(False)
            self.pinned = None
            self.model.set_filter(self.current_filter())
            self._update_count()
        row = self.model.row_of(episode_id)
        if row is not None:
            self.select_row(row)

    def select_episode(self, episode_id: int) -> None:
        row = self.model.row_of(episode_id)
        if row is not None and row != self.current_row():
            self._select_quietly(row)

    def next_unfinished(self, start: int) -> int | None:
        """The first row from `start` on, then from the top, whose screen is not finished (done, skipped,
        accepted, as the State column says); None when none is within LOOK_AHEAD rows."""
        count = self.model.stored_rows
        for i in range(min(count, LOOK_AHEAD)):
            row = (start + i) % count
            data = self.model.row_data(row)
            if data is not None and data[6] not in FINISHED:
                return row
        return None

    def step(self, delta: int) -> None:
        self.select_row(max(self.current_row(), 0) + delta)
