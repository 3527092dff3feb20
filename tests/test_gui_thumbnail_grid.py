"""The samples as a thumbnail grid beside the list (issue 21, item 16): the same rows, the same current
sample, real thumbnails decoded off the UI thread, and 100,000 samples scrolled through without decoding
them all."""

from __future__ import annotations

import hashlib
import os

import pytest
from PIL import Image, ImageStat
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from desktop_app.store.models import Episode, Screen, Step
from desktop_app.store.project import Project
from desktop_app.store.types import utcnow

from conftest import write_shoe_episodes
from gui_helpers import CountingRows, key
from test_gui_editing import open_window

pytestmark = pytest.mark.gui

SCALE_SAMPLES = 100_000


@pytest.fixture
def window(qtbot, demo_copy):
    return open_window(qtbot, demo_copy)


def show_grid(qtbot, browser, width=900, height=700):
    from desktop_app.ui.thumbnail_grid import ThumbnailGrid

    grid = ThumbnailGrid(browser)
    qtbot.addWidget(grid)
    grid.resize(width, height)
    grid.show()
    qtbot.waitExposed(grid)
    QApplication.processEvents()
    return grid


def thumbnails_ready(grid, rows) -> bool:
    view = grid.view
    return all(isinstance(grid.source.pixmap(view.source.screen(r), view.thumbnail_rect(r).size()), QPixmap)
               for r in rows)


def to_pil(image: QImage) -> Image.Image:
    image = image.convertToFormat(QImage.Format_RGB888)
    return Image.frombuffer("RGB", (image.width(), image.height()), bytes(image.constBits()), "raw", "RGB",
                            image.bytesPerLine(), 1)


def on_screen(grid, rect) -> Image.Image:
    """What the grid shows in `rect` of its viewport, as a user would see it."""
    return to_pil(grid.view.viewport().grab(rect).toImage())


def expected_size(width: int, height: int, box_w: int, box_h: int) -> tuple[int, int]:
    scale = min(box_w / width, box_h / height)
    return round(width * scale), round(height * scale)


def test_the_grid_shows_one_thumbnail_per_row_of_the_list(qtbot, window):
    browser = window.browser
    grid = show_grid(qtbot, browser, 700, 500)
    n = browser.model.rowCount()
    assert n == 28
    view = grid.view
    view.scrollToBottom()
    QApplication.processEvents()
    last = view.visualRect(browser.model.index(n - 1, 0))
    assert view.viewport().rect().contains(last.center())
    assert view.indexAt(last.center()).row() == n - 1
    beyond = last.center() + QPoint(last.width(), 0) if (n % grid.columns()) else last.center() + QPoint(0, 500)
    assert not view.indexAt(beyond).isValid()  # nothing after the last sample
    view.scrollToTop()
    QApplication.processEvents()
    first = view.visualRect(browser.model.index(0, 0))
    assert view.indexAt(first.center()).row() == 0
    grid.shutdown()


def test_thumbnails_are_the_screenshots_scaled_down(qtbot, window):
    grid = show_grid(qtbot, window.browser)
    view = grid.view
    shown = list(view.shown_rows())
    assert len(shown) >= 8
    qtbot.waitUntil(lambda: thumbnails_ready(grid, shown), timeout=10000)
    QApplication.processEvents()
    for row in shown[:8]:
        ref = view.source.screen(row)
        path = window.project.image_path(ref)
        with Image.open(path) as original:
            original = original.convert("RGB")
        want = expected_size(*original.size, view.box.width(), view.box.height())
        decoded = grid.source.pixmap(ref, view.thumbnail_rect(row).size()).toImage()
        assert abs(decoded.width() - want[0]) <= 1 and abs(decoded.height() - want[1]) <= 1
        rect = view.thumbnail_rect(row)
        seen = on_screen(grid, rect)
        assert seen.size == (decoded.width(), decoded.height())
        reference = original.resize(seen.size, Image.Resampling.BOX)
        for channel_seen, channel_ref in zip(ImageStat.Stat(seen).mean, ImageStat.Stat(reference).mean,
                                             strict=True):
            assert abs(channel_seen - channel_ref) < 4, (row, ImageStat.Stat(seen).mean)
        assert max(ImageStat.Stat(seen).stddev) > 10  # a picture, not the grey box it replaced
    assert grid.decodes == len({view.source.screen(r) for r in shown})  # each shown once, nothing else
    grid.shutdown()


def test_clicking_a_thumbnail_opens_that_episode_and_selects_its_row(qtbot, window):
    browser = window.browser
    grid = show_grid(qtbot, browser)
    index = browser.model.index(7, 0)
    QTest.mouseClick(grid.view.viewport(), Qt.LeftButton, Qt.NoModifier, grid.view.visualRect(index).center())
    QApplication.processEvents()
    assert window.ws.episode.id == browser.model.episode_id_at(7)
    assert browser.current_row() == 7
    assert browser.table.selectionModel().isRowSelected(7)

    grid.view.setFocus()
    QTest.keyClick(grid.view, Qt.Key_Right)
    assert window.ws.episode.id == browser.model.episode_id_at(8)
    QTest.keyClick(grid.view, Qt.Key_Down)
    below = 8 + grid.columns()
    assert window.ws.episode.id == browser.model.episode_id_at(below)
    with qtbot.waitSignal(grid.opened) as opened:
        QTest.keyClick(grid.view, Qt.Key_Return)
    assert opened.args == [browser.model.episode_id_at(below)]
    grid.shutdown()


def test_moving_in_the_window_moves_the_grid_and_scrolls_it(qtbot, window):
    browser = window.browser
    grid = show_grid(qtbot, browser, 420, 330)  # two thumbnails a row, two rows on show
    browser.select_row(0)
    window.activateWindow()  # the window's keys go to the active window (the grid's own came up over it)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    window.view.setFocus()
    for expected in range(1, 12):
        key(window, "D")
        current = grid.view.currentIndex()
        assert current.row() == expected
        assert window.ws.episode.id == browser.model.episode_id_at(expected)
        assert grid.view.viewport().rect().contains(grid.view.visualRect(current))
    assert grid.view.verticalScrollBar().value() > 0
    grid.shutdown()


def test_a_filter_in_the_list_changes_the_grid(qtbot, window):
    browser = window.browser
    grid = show_grid(qtbot, browser)
    view = grid.view
    assert len(view.shown_rows()) > 6
    browser.search.setText("chat")
    browser.apply_filter()
    QApplication.processEvents()
    assert browser.model.rowCount() == 6
    assert list(view.shown_rows()) == list(range(6))
    qtbot.waitUntil(lambda: thumbnails_ready(grid, range(6)), timeout=10000)
    QApplication.processEvents()
    for row in range(6):
        assert "chat" in browser.model.row_data(row)[1]
        assert max(ImageStat.Stat(on_screen(grid, view.thumbnail_rect(row))).stddev) > 10
    empty = view.visualRect(browser.model.index(5, 0)).translated(view.cell.width(), 0)
    if not view.viewport().rect().contains(empty):  # the sixth ended a line: the next cell is below
        empty = view.visualRect(browser.model.index(5, 0)).translated(0, view.cell.height())
    assert max(ImageStat.Stat(on_screen(grid, empty)).stddev) == 0  # an empty cell: nothing painted there
    assert grid.view.currentIndex().row() == 0 and window.ws.episode.key == browser.model.row_data(0)[1]
    grid.shutdown()


def test_the_size_slider_makes_bigger_thumbnails_and_fewer_of_them_a_line(qtbot, window):
    grid = show_grid(qtbot, window.browser)
    view = grid.view
    columns = grid.columns()
    qtbot.waitUntil(lambda: thumbnails_ready(grid, view.shown_rows()), timeout=10000)
    grid.slider.setValue(256)
    QApplication.processEvents()
    assert grid.columns() < columns
    shown = list(view.shown_rows())
    qtbot.waitUntil(lambda: thumbnails_ready(grid, shown), timeout=10000)
    QApplication.processEvents()
    landscape = next(r for r in shown if view.source.screen(r).width > view.source.screen(r).height)
    seen = on_screen(grid, view.thumbnail_rect(landscape))
    assert seen.size == (256, 160)  # a 1280x800 screenshot, 256 px wide
    assert max(ImageStat.Stat(seen).stddev) > 10
    grid.shutdown()


def test_a_multi_step_episode_shows_its_first_screen(qtbot, tmp_path):
    from desktop_app.formats.transfer import import_path
    from desktop_app.ui.browser import SampleBrowser

    folder = write_shoe_episodes(tmp_path / "data", episodes=2)  # steps coloured (40 * step, 90, 30 * episode)
    project = Project.init(tmp_path / "p")
    import_path(project, folder, "screenlab")
    browser = SampleBrowser(project)
    qtbot.addWidget(browser)
    grid = show_grid(qtbot, browser)
    qtbot.waitUntil(lambda: thumbnails_ready(grid, range(2)), timeout=10000)
    QApplication.processEvents()
    for row in range(2):
        episode = int(browser.model.row_data(row)[1].split("-")[1])
        mean = ImageStat.Stat(on_screen(grid, grid.view.thumbnail_rect(row))).mean
        assert [round(c) for c in mean] == [0, 90, 30 * episode]  # step 1's colour, not (40, 90, ...) or later
    grid.shutdown()
    project.close()


def test_the_thumbnail_cache_forgets_the_least_recently_used_within_its_bounds():
    from desktop_app.ui.thumbnail_grid import LRU

    cache = LRU(max_items=3, max_cost=100)
    for name in "abc":
        cache.put(name, name.upper(), cost=10)
    assert cache.get("a") == "A"  # now the most recent
    cache.put("d", "D", cost=10)
    assert "b" not in cache and len(cache) == 3
    cache.put("e", "E", cost=85)  # over the cost bound: the oldest go until it fits
    assert [k for k in "abcde" if k in cache] == ["d", "e"] and cache.cost == 95


# -- 100,000 samples ----------------------------------------------------------------------------------------
def sha_of(i: int) -> str:
    return hashlib.sha256(f"scale-screen-{i}".encode()).hexdigest()


def insert_rows(conn, table, constant: dict, columns: tuple[str, ...], rows) -> None:
    """Rows of `table` whose `columns` vary (numbers and plain text, stored as given) and the rest `constant`.
    Core's executemany would run every row's JSON and dates through their column types in Python (most of this
    file's time: 300,000 rows, 40 s on a loaded machine); each constant goes through its column's type once
    here, so the stored values are the ones Core writes."""
    fixed = {}
    for name, value in constant.items():
        process = table.c[name].type.dialect_impl(conn.dialect).bind_processor(conn.dialect)
        fixed[name] = process(value) if process else value
    names = ", ".join(f'"{name}"' for name in (*columns, *fixed))
    marks = ", ".join("?" * (len(columns) + len(fixed)))
    sql = f'INSERT INTO "{table.name}" ({names}) VALUES ({marks})'
    tail = tuple(fixed.values())
    conn.exec_driver_sql(sql, [(*row, *tail) for row in rows])


def big_project(folder, n: int, distinct: int = 8):
    """n single-step samples, each on its own screen row, written by bulk inserts; each screen's file a hard
    link to one of `distinct` real 1280x800 PNGs (a separate image to decode, little disk)."""
    originals = []
    for k in range(distinct):
        path = folder / f"original-{k}.png"
        image = Image.new("RGB", (1280, 800), (30 * k, 255 - 30 * k, 120))
        image.paste((255, 255, 255), (0, 0, 1280, 80))
        image.save(path)
        originals.append(str(path))
    now = utcnow()
    shas = [sha_of(i) for i in range(1, n + 1)]
    project = Project.init(folder / "big")
    with project.engine.begin() as conn:
        insert_rows(conn, Screen.__table__, {"ext": "png", "width": 1280, "height": 800, "platform": "web",
                                             "source": "", "meta": {}, "created_at": now},
                    ("id", "sha256"), enumerate(shas, 1))
        insert_rows(conn, Episode.__table__, {"kind": "sample", "scenario": "popup", "split": "",
                                              "review_status": "unreviewed", "meta": {}, "created_at": now,
                                              "updated_at": now, "updated_by": "", "version": 1},
                    ("id", "key", "goal"), ((i, f"ep-{i:06d}", f"goal {i}") for i in range(1, n + 1)))
        insert_rows(conn, Step.__table__, {"index": 0, "instruction": "", "meta": {}},
                    ("id", "episode_id", "screen_id"), ((i, i, i) for i in range(1, n + 1)))
    targets = [project.media.path_for(sha, "png") for sha in shas]
    for shard in {target.parent for target in targets}:  # 256 folders, not a mkdir per file
        shard.mkdir(exist_ok=True)
    for i, target in enumerate(targets, 1):
        os.link(originals[i % distinct], target)
    return project


def test_a_hundred_thousand_samples_scroll_to_the_end_decoding_only_what_is_shown(qtbot, tmp_path):
    from desktop_app.ui.browser import SampleBrowser

    project = big_project(tmp_path, SCALE_SAMPLES)
    browser = SampleBrowser(project)
    qtbot.addWidget(browser)
    grid = show_grid(qtbot, browser, 1000, 800)
    view = grid.view
    top = list(view.shown_rows())
    qtbot.waitUntil(lambda: thumbnails_ready(grid, top), timeout=15000)

    view.setFocus()
    QTest.keyClick(view, Qt.Key_End)  # the user goes to the last sample
    QApplication.processEvents()
    last = SCALE_SAMPLES - 1
    assert view.currentIndex().row() == last and browser.current_row() == last
    cell = view.visualRect(browser.model.index(last, 0))
    assert view.viewport().rect().contains(cell)
    assert browser.model.row_data(last)[1] == f"ep-{SCALE_SAMPLES:06d}"
    bottom = list(view.shown_rows())
    assert bottom[-1] == last
    qtbot.waitUntil(lambda: thumbnails_ready(grid, bottom), timeout=15000)
    QApplication.processEvents()
    seen = on_screen(grid, view.thumbnail_rect(last))
    assert seen.size == (160, 100)
    with Image.open(project.image_path(view.source.screen(last))) as original:
        reference = original.convert("RGB").resize(seen.size, Image.Resampling.BOX)
    for channel_seen, channel_ref in zip(ImageStat.Stat(seen).mean, ImageStat.Stat(reference).mean, strict=True):
        assert abs(channel_seen - channel_ref) < 4  # the last screen's picture, not the grey placeholder
    assert grid.decodes <= len(top) + len(bottom)  # what was on show, not 100,000
    grid.shutdown()
    project.close()


def test_the_window_has_the_grid_beside_the_list_and_an_undo_moves_it(qtbot, window):
    """In the window: a Thumbnails tab next to Samples; a click there opens the screen; an undo that goes
    back to another screen (the list is moved quietly) moves the grid too."""
    tabs = window.left_tabs
    assert tabs.tabText(1) == "Thumbnails" and tabs.widget(1) is window.grid
    tabs.setCurrentIndex(1)
    grid = window.grid
    qtbot.waitUntil(lambda: grid.isVisible(), timeout=5000)
    index = window.browser.model.index(3, 0)
    QTest.mouseClick(grid.view.viewport(), Qt.LeftButton, Qt.NoModifier, grid.view.visualRect(index).center())
    assert window.browser.current_row() == 3 and grid.view.currentIndex().row() == 3
    first = window.ws.episode.id
    box = window.scene.items_by_id[min(window.scene.items_by_id)].rect()
    from gui_helpers import drag, key

    window.view.setFocus()
    drag(window.view, (box.center().x(), box.center().y()), (box.center().x() + 2, box.center().y()))
    key(window, "D")
    assert grid.view.currentIndex().row() == 4
    key(window, "Ctrl+Z")  # the undo goes back to the edited screen
    assert window.ws.episode.id == first and grid.view.currentIndex().row() == 3


def test_a_hidden_sample_list_reads_no_row_and_fits_the_rows_on_screen_once_shown(qtbot):
    """With the Thumbnails tab in front the Samples list is hidden, and Qt measured its columns on every row of the
    project (1.6 million cells of 100,000 samples, over a minute, at each layout): it reads none while hidden, and
    the rows on screen once shown."""
    from desktop_app.ui.sample_table import SampleTable

    rows = CountingRows(SCALE_SAMPLES, lambda _row: "◐ in progress")
    table = SampleTable(("Id", "State"))
    qtbot.addWidget(table)
    table.setModel(rows)
    table.resize(400, 300)
    table.horizontalHeader().resizeSections()
    assert rows.read == set()
    table.show()
    qtbot.waitExposed(table)
    QApplication.processEvents()
    assert rows.read and max(rows.read) < 100  # the rows on screen, not 100,000
    assert table.columnWidth(1) >= table.fontMetrics().horizontalAdvance("◐ in progress")  # the state is not cut
