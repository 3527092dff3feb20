"""The sample list of a big project (issue 19: a million episodes filter and page within the goals): the first
page shows at once and the rest joins when counted off the UI thread; a page next to one already read is
found after it (by id), not by an OFFSET deep into a filtered million. Here on 650 episodes with the
threshold for counting in the background lowered to 0, which is what a project past 100,000 episodes gets."""

from __future__ import annotations

import pytest

from desktop_app.formats.transfer import import_path
from desktop_app.store.queries import EpisodeFilter, count_episodes, list_episodes, page_starts
from desktop_app.ui.browser import PAGE, EpisodeTableModel

from benchmarks.import_scale import generate
from gui_helpers import CountingRows

pytestmark = pytest.mark.gui
EPISODES = 650  # three full pages and a short one


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    from desktop_app.store.project import Project

    base = tmp_path_factory.mktemp("big-list")
    project = Project.init(base / "project")
    import_path(project, generate(base / "data", EPISODES), "screenlab")
    yield project
    project.close()


def test_the_first_page_shows_at_once_and_the_rest_joins_when_counted(qtbot, big):
    model = EpisodeTableModel(big, count_in_background_from=0)
    assert model.counting and model.rowCount() == PAGE
    with qtbot.waitSignal(model.counted, timeout=10_000):
        pass
    assert not model.counting and model.rowCount() == EPISODES

    label = EpisodeFilter(has_label="distracted")
    with big.reading() as s:
        expected = count_episodes(s, label)
    assert PAGE < expected < EPISODES
    with qtbot.waitSignal(model.counted, timeout=10_000):
        model.set_filter(label)
        assert model.rowCount() == PAGE  # the first page, before the count arrives
    assert model.rowCount() == expected


def test_a_filter_changed_while_counting_keeps_the_newest_count(qtbot, big):
    model = EpisodeTableModel(big, count_in_background_from=0)
    model.set_filter(EpisodeFilter(has_label="distracted"))
    model.set_filter(EpisodeFilter(has_label="other"))
    qtbot.waitUntil(lambda: not model.counting, timeout=10_000)
    qtbot.wait(200)  # the first two counts arrive too: they must be dropped
    with big.reading() as s:
        assert model.rowCount() == count_episodes(s, EpisodeFilter(has_label="other"))


def test_pages_read_one_after_another_or_by_a_jump_list_the_same_episodes(qtbot, big):
    label = EpisodeFilter(has_label="gold")
    with big.reading() as s:
        expected = [e.id for e in list_episodes(s, label, limit=EPISODES)]
    model = EpisodeTableModel(big, count_in_background_from=0)
    model.set_filter(label)
    qtbot.waitUntil(lambda: not model.counting, timeout=10_000)
    assert [model.episode_id_at(row) for row in range(model.rowCount())] == expected  # page after page

    jumped = EpisodeTableModel(big)  # counts at once; nothing read before the jump: OFFSET
    jumped.set_filter(label)
    last = len(expected) - 1
    assert jumped.episode_id_at(last) == expected[last] and jumped.episode_id_at(PAGE + 3) == expected[PAGE + 3]

    counted = EpisodeTableModel(big, count_in_background_from=0)  # counted off the UI thread: pages by their start
    counted.set_filter(label)
    qtbot.waitUntil(lambda: not counted.counting, timeout=10_000)
    assert counted.episode_id_at(last) == expected[last]  # the short last page, read first, without an OFFSET
    assert [counted.episode_id_at(row) for row in (2 * PAGE, PAGE + 3, 0)] == [expected[2 * PAGE],
                                                                                expected[PAGE + 3], expected[0]]


@pytest.mark.parametrize("label", [None, "gold", "distracted", "no such label"])
def test_page_starts_count_the_rows_and_name_the_first_of_each_page(big, label):
    flt = EpisodeFilter(has_label=label) if label else EpisodeFilter()
    with big.reading() as s:
        ids = [e.id for e in list_episodes(s, flt, limit=EPISODES)]
        for page in (PAGE, len(ids) or 1, 7):  # 7: many pages; len(ids): exactly one full page
            assert page_starts(s, flt, page) == (len(ids), ids[::page])


def shown_list(qtbot, state):
    """A sample list's table of 500 counted rows (column 1 `state(row)`), shown at 500x300 and laid out."""
    from PySide6.QtWidgets import QApplication

    from desktop_app.ui.sample_table import SampleTable

    rows = CountingRows(500, state)
    table = SampleTable(("Id", "State"))
    qtbot.addWidget(table)
    table.setModel(rows)
    table.resize(500, 300)
    table.show()
    qtbot.waitExposed(table)
    QApplication.processEvents()
    return rows, table


def test_rows_scrolled_into_view_are_measured_once_the_scrolling_stops(qtbot):
    """Stepping down a long list scrolls it a row a press: its columns are measured again when the scrolling
    stops, not at every row (that read ~600 cells, 13 ms of each press), and a wider value scrolled into view
    still widens its column then."""
    rows, table = shown_list(qtbot, lambda row: "○ to do" if row < 100 else "◐ in progress, reviewed twice")
    wide = table.fontMetrics().horizontalAdvance("◐ in progress, reviewed twice")
    assert table.columnWidth(1) < wide  # the rows on screen say "○ to do"
    rows.read.clear()
    bar = table.verticalScrollBar()
    for _ in range(150):  # a held key: a row a press, no pause between them
        bar.setValue(bar.value() + 1)
    assert rows.read == set()  # nothing measured while it scrolls
    qtbot.waitUntil(lambda: table.columnWidth(1) >= wide, timeout=5000)  # measured once it stopped
    assert rows.read and min(rows.read) >= 100  # the rows now on screen


def test_a_layout_of_the_list_reads_no_cell_again_until_one_changes(qtbot):
    """Qt measures the columns at every layout of the list's header: each resize (a dock dragged, the window
    resized), each tab inserted. A column's measure is kept while the rows on screen and their cells stay (a
    window's resize step took 52 ms, 28 ms with them kept: ADR 0068), and a cell that changes is measured again."""
    from PySide6.QtWidgets import QApplication

    rows, table = shown_list(qtbot, lambda row: "○ to do")
    header = table.horizontalHeader()
    rows.read.clear()
    for _ in range(5):
        header.resizeSections()  # what each resize of the list does
    assert rows.read == set()
    wide = table.fontMetrics().horizontalAdvance("◐ in progress, reviewed twice")
    assert table.columnWidth(1) < wide
    rows.state = lambda row: "◐ in progress, reviewed twice"  # the cells change, and the model says so
    rows.dataChanged.emit(rows.index(0, 1), rows.index(rows.count - 1, 1))
    header.resizeSections()
    assert rows.read and table.columnWidth(1) >= wide
    rows.read.clear()
    table.resize(500, 400)  # a taller list: more rows on screen, measured
    QApplication.processEvents()
    assert rows.read


def test_a_paint_of_the_list_calls_into_python_once_a_cell_and_shows_what_data_says(qtbot, big):
    """A table's paint asks each cell for seven roles. Qt's own multiData asks the model's data() once a role:
    seven calls from C++ into Python a cell, each waiting for the GIL while an import runs (ADR 0070). The list's
    model answers them in one call (every data() of the paint comes from its multiData), and each role holds
    what data() says."""
    import sys

    from PySide6.QtCore import QModelRoleData, QModelRoleDataSpan, Qt
    from PySide6.QtWidgets import QApplication, QTableView

    class Traced(EpisodeTableModel):
        callers: list[str] = []

        def data(self, index, role=Qt.DisplayRole):
            self.callers.append(sys._getframe(1).f_code.co_name)  # multiData, or the test (straight from C++)
            return super().data(index, role)

    model = Traced(big)
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(model)
    view.resize(600, 400)
    view.show()
    qtbot.waitExposed(view)
    QApplication.processEvents()
    model.callers.clear()
    view.viewport().repaint()
    assert len(model.callers) >= 7 * 10 and set(model.callers) == {"multiData"}

    for column in (0, 4, 5):
        index = model.index(3, column)
        for role in (Qt.DisplayRole, Qt.ToolTipRole, Qt.FontRole, Qt.DecorationRole):
            asked = QModelRoleData(role)
            model.multiData(index, QModelRoleDataSpan(asked))
            assert asked.data() == EpisodeTableModel.data(model, index, role)
    assert model.index(3, 0).data(Qt.DisplayRole) not in (None, "")  # what Qt's own call gets
