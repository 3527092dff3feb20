"""Golden images of the canvas and the main window (issue 33): each is rendered offscreen at a fixed size, in
the fonts the app bundles (resources/fonts, DejaVu Sans at a pixel size, unhinted, grey anti-aliasing) on the
light Fusion theme, and compared with its PNG in tests/data/snapshots/ (tests/snapshot_compare.py says how).
A change that moves or hides a widget fails here; the last test proves the comparison notices one.

Meant changes: `make snapshots` takes the pictures again (SCREENLAB_UPDATE_SNAPSHOTS=1); look at them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontDatabase, QImage
from PySide6.QtWidgets import QApplication, QWidget
from snapshot_compare import check, difference, pixels, reference

from desktop_app.paths import demo_dataset_dir, resources_dir
from desktop_app.settings import Settings
from desktop_app.store.models import ActionBox
from desktop_app.ui.canvas.items import ImageItem
from desktop_app.ui.canvas.scene import AnnotationScene
from desktop_app.ui.canvas.suggestions import Suggestion
from desktop_app.ui.canvas.view import CanvasView
from desktop_app.ui.tasks import wait_all
from desktop_app.ui.theme import apply_theme

from conftest import copy_first_start
from gui_helpers import click

pytestmark = pytest.mark.gui

WINDOW = (1366, 768)  # a laptop's screen (issue 33)
CANVAS = (720, 450)
CLASS = "cookie banner"  # a box's class: named in its caption, its colour its role's
SYMBOLS = Path(__file__).parent / "data" / "fonts"


@pytest.fixture(scope="module")
def fixed_look(qapp):
    """The bundled DejaVu Sans at a pixel size, unhinted, grey anti-aliasing; Fusion, light. Undone after.

    The bundled fonts are a Latin subset: the signs the window also shows ("◐ in progress", "⚠") come from
    tests/data/fonts (the same DejaVu glyphs, a family of their own), never from a font the machine happens to
    have. Boxes in the system's fixed-width font (a run's results, an answer's raw text) are drawn in the tests'
    own DejaVu Sans Mono (fixed_width_pinned): the app bundles no fixed-width font."""
    fonts = [resources_dir() / "fonts" / name for name in ("DejaVuSans.woff2", "DejaVuSans-Bold.woff2")]
    fonts += [SYMBOLS / name for name in ("symbols.ttf", "symbols-bold.ttf", "mono.ttf")]
    for path in fonts:
        assert QFontDatabase.addApplicationFont(str(path)) >= 0, path
    before = (QFont(qapp.font()), qapp.palette(), qapp.style().name(), qapp.styleSheet())
    qapp.setStyleSheet("")
    font = QFont()
    font.setFamilies(["DejaVu Sans", "ScreenLab Test Symbols"])  # a sign the first lacks, from the second
    font.setPixelSize(12)
    font.setHintingPreference(QFont.PreferNoHinting)  # the glyphs' shapes, not the machine's hinting settings
    font.setStyleStrategy(QFont.StyleStrategy(QFont.PreferAntialias | QFont.NoSubpixelAntialias))
    qapp.setFont(font)
    apply_theme(qapp, "light")
    yield
    qapp.setFont(before[0])
    qapp.setStyle(before[2])
    qapp.setPalette(before[1])
    qapp.setStyleSheet(before[3])


def settle(qtbot, ms: int = 50) -> None:
    wait_all()
    qtbot.wait(ms)
    QApplication.processEvents()


def fixed_width_pinned(window) -> None:
    """The widgets in the system's fixed-width font (whatever the machine has) in "ScreenLab Test Mono", same size."""
    system = QFontDatabase.systemFont(QFontDatabase.FixedFont).family()
    for widget in window.findChildren(QWidget):
        if widget.font().family() in (system, "monospace"):
            font = QFont(widget.font())
            font.setFamilies(["ScreenLab Test Mono"])
            widget.setFont(font)


def render(widget) -> QImage:
    image = widget.grab().toImage()
    assert image.devicePixelRatio() == 1.0, "render at 100 % (QT_SCALE_FACTOR and QT_FONT_DPI unset)"
    return image


# -- the canvas ------------------------------------------------------------------------------------------------
def demo_screen():
    """The demo's first screen (a pop-up over a shop page) and its three labelled actions."""
    first = json.loads((demo_dataset_dir() / "episodes.jsonl").read_text(encoding="utf-8").splitlines()[0])
    step = first["steps"][0]
    return QImage(str(demo_dataset_dir() / step["image"])), step["actions"]


@pytest.fixture
def canvas(qtbot, fixed_look):
    image, actions = demo_screen()
    assert not image.isNull()
    boxes = [ActionBox(id=i + 1, step_id=1, x1=a["box"][0], y1=a["box"][1], x2=a["box"][2], y2=a["box"][3],
                       label=a["label"], element_text=a["element_text"]) for i, a in enumerate(actions)]
    boxes += [ActionBox(id=10, step_id=1, x1=72, y1=330, x2=196, y2=372, label="other", element_text="Shop now"),
              ActionBox(id=11, step_id=1, x1=0, y1=0, x2=1280, y2=26, label="other", category=CLASS,
                        element_text="Free delivery on orders over $60")]
    scene = AnnotationScene()
    view = CanvasView(scene)
    view.kept_scene = scene  # the view does not own its scene: Python would free it
    qtbot.addWidget(view)
    view.setFixedSize(*CANVAS)
    view.show()
    qtbot.waitExposed(view)
    scene.load(image, image.width(), image.height(), boxes)
    view.fit()
    # what OCR found on the screen (ui/ocr_assist.py hands the layer these): words and an element
    scene.suggestions.set_items([Suggestion((30, 428, 178, 454), "Trending now", "word"),
                                 Suggestion((1190, 430, 1250, 454), "See all", "word"),
                                 Suggestion((30, 700, 330, 758), "Fast delivery", "button")])
    settle(qtbot)
    return view


def test_the_canvas_shows_each_label_a_selection_and_suggestions(qtbot, canvas, tmp_path):
    scene = canvas.canvas
    click(canvas, 130, 350)  # the "other" box (Shop now): selected, its handles shown
    click(canvas, 1220, 442, Qt.ShiftModifier)  # and the "See all" suggestion beside it
    settle(qtbot)
    assert scene.selected_ids() == [10] and scene.suggestions.selected == {1}
    assert {item.label for item in scene.items_by_id.values()} == {"gold", "distracted", "other"}
    assert scene.items_by_id[11].caption == f"{CLASS} · Free delivery on orders over $60"
    check(render(canvas), "canvas", tmp_path)


# -- the main window ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def demo(tmp_path_factory, first_start_template):
    """The demo project a first start makes (every demo dataset in it), with one run of the "center" baseline
    (its answers are the same every time): the runs list, the answers' cards and markers have something to show."""
    from desktop_app import api
    from desktop_app.store.project import Project

    folder = copy_first_start(first_start_template, tmp_path_factory.mktemp("first-start"))
    with Project.open(folder) as project:
        api.run(project, "center", api.where(scenarios=("popup",)))
    return folder


@pytest.fixture
def window(qtbot, fixed_look, demo):
    from desktop_app.ui.main_window import MainWindow

    window = MainWindow(Settings(annotator="tester", show_suggestions=False))  # OCR would add its own boxes
    qtbot.addWidget(window)
    window.resize(*WINDOW)
    window.show()
    qtbot.waitExposed(window)
    assert window.open_project(demo)
    qtbot.waitUntil(lambda: isinstance(window.scene.background, ImageItem), timeout=10000)
    window.view.setFocus()  # no text caret blinking in a field
    fixed_width_pinned(window)
    settle(qtbot)
    assert (window.width(), window.height()) == WINDOW
    yield window
    window.close_project()


def test_the_main_window_at_1366x768(qtbot, window, tmp_path):
    assert window.ws.episode.key == "demo-popup-01"
    check(render(window), "main-window", tmp_path)


def test_the_main_window_with_the_runs_and_predictions_tabs(qtbot, window, tmp_path):
    window.left_tabs.setCurrentWidget(window.runs)
    window.right_tabs.setCurrentWidget(window.prediction_panel)
    fixed_width_pinned(window)  # the answers' cards are made as they show
    settle(qtbot)
    check(render(window), "main-window-runs", tmp_path)


def test_a_hidden_or_moved_widget_fails_the_comparison(qtbot, window):
    """The comparison's tolerance lets anti-aliasing through, not a widget that moved or went."""
    expected = reference("main-window")
    assert expected is not None, "take the pictures first: make snapshots"
    assert difference(pixels(render(window)), expected).matches  # as it is: the same picture

    window.browser.count_label.setIndent(6)  # "N episodes" under the list, 6 px to the right
    settle(qtbot)
    moved = difference(pixels(render(window)), expected)
    assert not moved.matches, moved
    window.browser.count_label.setIndent(-1)

    window.status.zoom.hide()  # "49 %" in the status bar: the labels before it close up
    settle(qtbot)
    hidden = difference(pixels(render(window)), expected)
    assert not hidden.matches, hidden
    window.status.zoom.show()
    settle(qtbot)
    assert difference(pixels(render(window)), expected).matches  # back as it was
