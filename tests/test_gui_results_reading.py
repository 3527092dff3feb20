"""Reading the results (issue 21, items 7 and 8): the runs list at a dock's width, the dashboard's
texts, table rows and empty state, and the report's plots in the dashboard's colours."""

from __future__ import annotations

from itertools import combinations

import pytest
from PIL import Image
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QApplication, QGraphicsTextItem, QStyle, QStyleOptionViewItem
from test_gui_runs import agent

from desktop_app import api
from desktop_app.agents.profiles import BASELINES
from desktop_app.evaluation.chart import REPORT_LEGEND_HEIGHT, Y_LABEL
from desktop_app.evaluation.chart_png import FOREGROUND
from desktop_app.runs.engine import create_run, execute
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter
from desktop_app.ui.eval.dashboard import NO_RUNS, DashboardWidget
from desktop_app.ui.eval.runs_panel import NAME, PROGRESS, STATUS, VERDICTS, RunsPanel
from desktop_app.ui.tasks import wait_all

from openai_server import FakeOpenAI, Response

pytestmark = pytest.mark.gui

LONG_NAME = "centre clicks on every screen of the demo, first pass"


@pytest.fixture(autouse=True)
def _background_calls_end():
    yield
    wait_all()


@pytest.fixture
def runs(demo_copy):
    """The demo with three finished runs: a long-named baseline, an unnamed one, and a model run
    whose every third request failed (its status: done with errors)."""
    def answer(body, n):
        return Response(status=500) if n % 3 == 0 else Response(text='{"action_type": "click", "point": [5, 5]}')

    with Project.open(demo_copy) as project:
        ids = [create_run(project, BASELINES["center"], EpisodeFilter(), name=LONG_NAME),
               create_run(project, BASELINES["random"], EpisodeFilter())]
        for run_id in ids:
            execute(project, run_id)
        with FakeOpenAI(answer) as server:
            ids.append(create_run(project, agent(server), EpisodeFilter(scenarios=("popup", "chat")), protocol="screen"))
            execute(project, ids[-1])
        yield project, ids


@pytest.fixture
def reviewer_font(qapp):
    """The walk-through's screen had a larger font than Qt's 9 pt default."""
    before = QApplication.font()
    bigger = QFont(before)
    bigger.setPointSizeF(14)
    QApplication.setFont(bigger)
    yield
    QApplication.setFont(before)


def shown_text(tree, item, column) -> str:
    """A cell's text as the tree paints it: elided to the room left beside the check box and icon."""
    index = tree.indexFromItem(item, column)
    option = QStyleOptionViewItem()
    tree.itemDelegate().initStyleOption(option, index)
    option.rect = tree.visualRect(index)
    style = tree.style()
    text_rect = style.subElementRect(QStyle.SE_ItemViewItemText, option, tree)
    margin = style.pixelMetric(QStyle.PM_FocusFrameHMargin, None, tree) + 1
    return option.fontMetrics.elidedText(item.text(column), tree.textElideMode(), text_rect.width() - 2 * margin)


def cell_in_view(tree, item, column) -> bool:
    return tree.viewport().rect().contains(tree.visualRect(tree.indexFromItem(item, column)))


def show(qtbot, widget, width: int, height: int):
    qtbot.addWidget(widget)
    widget.resize(width, height)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_the_runs_list_reads_at_a_docks_width(qtbot, runs):
    project, (long_run, plain_run, failing_run) = runs
    panel = show(qtbot, RunsPanel(project), 500, 320)
    tree, items = panel.tree, panel._items
    rows = {r.id: r for r in panel.run_rows()}
    for run_id in (long_run, plain_run, failing_run):  # which, how far, how well: all in view at 500 px
        for column in (NAME, STATUS, PROGRESS, VERDICTS):
            assert cell_in_view(tree, items[run_id], column), (run_id, column)

    # the long name is elided in the middle, keeping its start and end; the whole name is its tooltip
    shown = shown_text(tree, items[long_run], NAME)
    assert shown.startswith(f"#{long_run}  centre") and shown.endswith("pass") and "…" in shown
    assert len(shown) >= 18
    assert items[long_run].toolTip(NAME).splitlines()[0] == f"#{long_run}  {LONG_NAME}"

    # statuses in words; the stored value stays with the cell for code
    assert (items[failing_run].text(STATUS), items[failing_run].data(STATUS, Qt.UserRole)) == (
        "done, some errors", "done_with_errors")
    assert (items[long_run].text(STATUS), items[long_run].data(STATUS, Qt.UserRole)) == ("done", "done")
    assert rows[failing_run].status == "done_with_errors"
    assert shown_text(tree, items[failing_run], STATUS) == "done, some errors"  # not elided
    assert "HTTP 500" in items[failing_run].toolTip(STATUS)

    # verdicts: compact and whole in the cell, every number in words in its tooltip
    for run_id in (long_run, failing_run):
        tally = rows[run_id].verdicts
        text = items[run_id].text(VERDICTS)
        assert text == f"g{tally.get('gold', 0)} d{tally.get('distracted', 0)} o{tally.get('other', 0)} " \
                       f"i{tally.get('invalid', 0)}"
        assert shown_text(tree, items[run_id], VERDICTS) == text
        assert f"gold (the target): {tally.get('gold', 0)}" in items[run_id].toolTip(VERDICTS)
    assert f"failed requests (no verdict): {rows[failing_run].verdicts['error']}" in items[failing_run].toolTip(VERDICTS)

    # with room to spare every name is whole and every column in view
    panel.resize(1000, 320)
    qtbot.waitUntil(lambda: cell_in_view(tree, items[long_run], 1))  # the last column: protocol
    for run_id in (long_run, plain_run, failing_run):
        assert shown_text(tree, items[run_id], NAME) == items[run_id].text(NAME)
        assert all(cell_in_view(tree, items[run_id], c) for c in range(tree.columnCount()))
    panel.shutdown()


def drawn_texts(scene) -> list[tuple[str, QRectF]]:
    """Every text drawn in the plots' scene (titles, the axis caption, the legend) with the rectangle
    its letters take (the item's rect less its document margin)."""
    texts = []
    for item in scene.items():
        if isinstance(item, QGraphicsTextItem) and item.isVisible() and item.toPlainText().strip():
            margin = item.document().documentMargin()
            rect = item.mapRectToScene(item.boundingRect().adjusted(margin, margin, -margin, -margin))
            texts.append((item.toPlainText(), rect))
    return texts


def test_the_by_scenario_texts_do_not_overlap(qtbot, runs, reviewer_font):
    project, ids = runs
    dashboard = show(qtbot, DashboardWidget(), 1200, 520)
    with qtbot.waitSignal(dashboard.refreshed, timeout=10000):
        dashboard.refresh(project, ids)
    dashboard.set_breakdown("scenario")
    dashboard.set_rules("both")  # 4 scenarios x 2 rule sets: two lines of subplots
    qtbot.wait(50)
    texts = drawn_texts(dashboard.plot_widget.scene())
    captions = [rect for text, rect in texts if text.strip() == Y_LABEL]
    assert len(captions) >= 1
    for (text_a, a), (text_b, b) in combinations(texts, 2):
        assert not a.intersects(b), f"{text_a!r} is drawn over {text_b!r}"
    drawn_area = dashboard.plot_widget.ci.sceneBoundingRect()
    assert all(drawn_area.contains(rect) for rect in captions)  # whole, not cut at the canvas' edge


def test_the_table_shows_every_row_in_a_short_dock(qtbot, runs):
    project, ids = runs
    dashboard = show(qtbot, DashboardWidget(), 1000, 430)
    with qtbot.waitSignal(dashboard.refreshed, timeout=10000):
        dashboard.refresh(project, ids)
    qtbot.wait(50)
    view, model = dashboard.table_view, dashboard.model
    assert model.rowCount() == 3  # center, random, fake
    for row in range(model.rowCount()):
        assert view.viewport().rect().contains(view.visualRect(model.index(row, 0))), row
    assert {model.index(r, 0).data() for r in range(3)} == {"center", "random", "fake"}


def test_with_no_runs_the_legend_and_the_canvas_keep_their_shape(qtbot, runs):
    project, _ = runs
    dashboard = show(qtbot, DashboardWidget(), 1000, 520)
    for redraw in (lambda: None, lambda: dashboard.refresh(project, [])):  # as opened, and emptied
        redraw()
        qtbot.wait(50)
        canvas = dashboard.plot_widget
        drawn = canvas.ci.geometry()
        assert abs(drawn.width() - canvas.viewport().width()) <= 1
        assert abs(drawn.height() - canvas.viewport().height()) <= 1
        (legend,) = [i for i in canvas.ci.items if type(i).__name__ == "LegendItem"]
        for sample, label in legend.items:  # each swatch right before its name, on the same line
            swatch, name = sample.sceneBoundingRect(), label.item.sceneBoundingRect()
            assert abs(swatch.center().y() - name.center().y()) <= 4, label.text
            assert 0 <= name.left() - swatch.right() <= 16, label.text
        assert any(text == NO_RUNS for text, _ in drawn_texts(canvas.scene()))


def test_the_report_plots_are_large_and_in_the_dashboards_colours(qtbot, runs, tmp_path):
    project, ids = runs
    dashboard = show(qtbot, DashboardWidget(), 1000, 600)
    with qtbot.waitSignal(dashboard.refreshed, timeout=10000):
        dashboard.refresh(project, ids)
    dashboard.set_breakdown("overall")
    qtbot.wait(50)
    shot = dashboard.plot_widget.viewport().grab().toImage()
    on_screen = {}
    for bar in dashboard.bars:
        if bar.value > 0.05:
            where = dashboard.plot_widget.mapFromScene(dashboard.bar_scene_pos(bar))
            on_screen[bar.metric] = shot.pixelColor(where).name()
    assert {"acc_gold", "acc_inv"} <= set(on_screen)

    api.write_report(project, tmp_path / "report", runs=ids)
    with Image.open(tmp_path / "report" / "plot_overall.png") as image:
        assert image.width >= 960 and image.height >= 600
        pixels = image.convert("RGB")
        counts = {QColor(*rgb).name(): n for n, rgb in pixels.getcolors(maxcolors=1 << 22)}
        for metric, colour in on_screen.items():
            assert counts.get(colour, 0) >= 200, (metric, colour)  # the same colour, as bars not specks
        # the legend's names are at least 15 px tall, from the top of "A" to the foot of "g"
        ink = QColor(FOREGROUND)
        legend_rows = [y for y in range(REPORT_LEGEND_HEIGHT) if any(
            pixels.getpixel((x, y)) == (ink.red(), ink.green(), ink.blue()) for x in range(image.width // 2))]
        assert legend_rows and legend_rows[-1] - legend_rows[0] + 1 >= 15
