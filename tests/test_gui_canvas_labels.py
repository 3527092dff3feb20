"""Labels on the canvas (issue 21, items 9 and 10), checked as the user sees them in the real window:
box captions go where they hide least and follow the captions setting, a selected box's handles
stay off its text, and the agents' verdict tags keep off captions and each other; a point outside
the screenshot is drawn on its edge and says so; answers with no place on the page are listed in
the legend instead of covering the page's top-left corner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont
from PySide6.QtCore import QEvent, QPointF, QRectF, Qt
from PySide6.QtGui import QHelpEvent, QImage, QMouseEvent
from PySide6.QtWidgets import QApplication, QToolTip

from desktop_app.formats.transfer import import_path
from desktop_app.settings import Settings, load_settings, save_settings
from desktop_app.store.project import Project
from desktop_app.ui.canvas.prefetch import decode, ink_of
from desktop_app.ui.eval.colours import run_colour
from desktop_app.ui.eval.prediction_layer import legend_rect, marks_from_rows
from desktop_app.ui.settings_dialog import SettingsDialog

from gui_helpers import drag
from test_gui_editing import open_window as _open_window


def open_window(qtbot, path, settings=None):
    """The editing tests' window, wide enough that the whole 800 px page shows at 1:1 beside both docks (the
    window may now be narrower than its docks and the page together: ADR 0035)."""
    window = _open_window(qtbot, path, settings)
    window.resize(1900, 1000)
    QApplication.processEvents()
    window.view.actual_size()
    QApplication.processEvents()
    return window

pytestmark = pytest.mark.gui

SIZE = (800, 480)
BACKGROUND = (245, 236, 217)
HEADER = "Peakline outdoor - sign up for the high trails"
# text drawn on the page -> (where it is drawn, the box labelled on it or None)
TEXTS = {
    "Orders": ((60, 150), ("gold", [54, 146, 124, 174])),
    "Returns": ((60, 180), None),  # a link nobody boxed: captions must still keep off it
    "Help center": ((60, 210), ("other", [54, 206, 162, 234])),
    "Save": ((560, 155), ("distracted", [520, 150, 660, 180])),
    "Cancel": ((560, 187), ("other", [520, 182, 660, 212])),  # right under Save: no room above
    "Email address": ((70, 308), ("distracted", [60, 300, 340, 336])),
    "Continue": ((370, 308), ("gold", [346, 300, 470, 336])),
    "x": ((729, 62), ("gold", [720, 60, 748, 88])),
}
CLOSE_CAPTION = "Close (x)"


def _font(size: int):
    return ImageFont.load_default(size=size)


def write_page(folder: Path) -> dict[str, tuple[int, int, int, int]]:
    """A one-screen project source; returns where each text (and the header) is drawn, in image pixels."""
    image = Image.new("RGB", SIZE, BACKGROUND)
    draw = ImageDraw.Draw(image)
    drawn = {"header": draw.textbbox((12, 10), HEADER, font=_font(24))}
    draw.text((12, 10), HEADER, fill=(30, 30, 30), font=_font(24))
    actions = []
    for text, ((x, y), box) in TEXTS.items():
        drawn[text] = draw.textbbox((x, y), text, font=_font(18))
        draw.text((x, y), text, fill=(40, 60, 200), font=_font(18))
        if box is not None:
            label, rect = box
            draw.rectangle(rect, outline=(200, 200, 200))
            caption = CLOSE_CAPTION if text == "x" else text
            actions.append({"box": rect, "label": label, "element_text": caption})
    (folder / "images").mkdir(parents=True, exist_ok=True)
    image.save(folder / "images" / "page.png")
    step = {"image": "images/page.png", "instruction": "Close the pop-up", "actions": actions}
    episode = {"id": "labels-1", "goal": "Close the pop-up", "scenario": "popup", "review_status": "accepted",
               "steps": [step]}
    (folder / "episodes.jsonl").write_text(json.dumps(episode) + "\n")
    return drawn


@pytest.fixture
def page(tmp_path):
    drawn = write_page(tmp_path / "source")
    with Project.init(tmp_path / "labels") as project:
        import_path(project, tmp_path / "source", "screenlab")
    return tmp_path / "labels", drawn


def box_id(window, caption: str) -> int:
    return next(i for i, item in window.scene.items_by_id.items() if item.text == caption)


def captions(window) -> dict[str, QRectF]:
    """Caption text -> its rect in viewport pixels, as painted now."""
    return {window.scene.items_by_id[place.box_id].text: rect for place, rect in window.view.caption_rects()}


def in_view(window, rect) -> QRectF:
    """An image-pixel rect ((x1, y1, x2, y2) or QRectF) in viewport pixels."""
    if not isinstance(rect, QRectF):
        rect = QRectF(QPointF(rect[0], rect[1]), QPointF(rect[2], rect[3]))
    return QRectF(window.view.mapFromScene(rect).boundingRect())


def grab(window) -> QImage:
    window.view.viewport().repaint()
    return window.view.viewport().grab().toImage()


def hover(window, x: float, y: float) -> None:
    viewport = window.view.viewport()
    pos = QPointF(window.view.mapFromScene(QPointF(x, y)))
    event = QMouseEvent(QEvent.MouseMove, pos, QPointF(viewport.mapToGlobal(pos.toPoint())), Qt.NoButton,
                        Qt.NoButton, Qt.NoModifier)
    QApplication.sendEvent(viewport, event)
    QApplication.processEvents()


PREDICTIONS = [  # as step_prediction_rows() gives them
    {"run": 1, "agent": "gpt", "pattern": "direct", "point": [708, 52], "verdict": "invalid"},
    {"run": 2, "agent": "qwen", "pattern": "cot", "point": [950, 300], "verdict": "invalid"},
    {"run": 3, "agent": "llava", "pattern": "direct", "point": None, "verdict": "error"},
    {"run": 4, "agent": "ui-tars", "pattern": "cot", "point": None, "verdict": "invalid", "wrong_format": True},
    {"run": 5, "agent": "seeclick", "pattern": "direct", "point": None, "verdict": "error"},
    {"run": 6, "agent": "cogagent", "pattern": "direct", "point": [704, 60], "verdict": "invalid"},
]


def show_predictions(window, rows=PREDICTIONS) -> None:
    window.scene.predictions.set_predictions(marks_from_rows(rows))
    window.view.viewport().update()
    QApplication.processEvents()


def tags_in_view(window) -> dict[int, tuple[str, QRectF]]:
    """run -> (tag text, tag rect in viewport pixels) as drawn at the view's zoom."""
    scale = window.view.scale_factor()
    return {tag.mark.run_id: (tag.text, in_view(window, tag.rect)) for tag in window.scene.predictions.tags(scale)}


# captions ----------------------------------------------------------------------------------------------------
def test_captions_keep_off_neighbouring_boxes_and_unboxed_text(qtbot, page):
    path, drawn = page
    window = open_window(qtbot, path)
    shown = captions(window)
    assert set(shown) == {"Orders", "Help center", "Save", "Cancel", "Email address", "Continue", CLOSE_CAPTION}
    boxes = {item.text: in_view(window, item.rect()) for item in window.scene.items_by_id.values()}
    for text, rect in shown.items():
        for other, box in boxes.items():
            if other != text:
                assert not rect.intersects(box), (text, other)
        for other_text, other_rect in shown.items():
            if other_text != text:
                assert not rect.intersects(other_rect), (text, other_text)
    # Help center's caption does not hide the "Returns" link above it, which has no box
    assert not shown["Help center"].intersects(in_view(window, drawn["Returns"]))
    # with room above, a caption stays above its box (the usual place)
    assert shown["Orders"].bottom() <= boxes["Orders"].top() + 1
    # Cancel is right under Save: its caption goes below it, not over Save
    assert shown["Cancel"].top() >= boxes["Cancel"].bottom() - 1


def test_caption_setting_always_hover_never(qtbot, page, tmp_path):
    path, _ = page
    window = open_window(qtbot, path, Settings(annotator="ann", show_suggestions=False, box_captions="hover"))
    assert captions(window) == {}  # nothing hovered or selected yet
    window.scene.select_ids([box_id(window, "Save")])
    QApplication.processEvents()
    assert set(captions(window)) == {"Save"}
    continue_box = window.scene.items_by_id[box_id(window, "Continue")].rect()
    hover(window, continue_box.center().x(), continue_box.center().y())
    assert set(captions(window)) == {"Save", "Continue"}
    hover(window, 780, 460)  # away from every box
    assert set(captions(window)) == {"Save"}
    window.view.show_captions = False  # View > Show captions still hides them all
    assert captions(window) == {}
    window.close()

    never = open_window(qtbot, path, Settings(annotator="ann", show_suggestions=False, box_captions="never"))
    never.scene.select_ids([box_id(never, "Save")])
    assert captions(never) == {}
    never.close()

    # the setting is stored, and a settings file from before it existed still loads, as "always"
    settings = Settings()
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    assert dialog.box_captions.currentData() == "always"
    dialog.box_captions.setCurrentIndex(dialog.box_captions.findData("hover"))
    dialog.apply_to(settings)
    save_settings(settings, tmp_path / "settings.json")
    assert load_settings(tmp_path / "settings.json").box_captions == "hover"
    old = {k: v for k, v in json.loads((tmp_path / "settings.json").read_text()).items() if k != "box_captions"}
    (tmp_path / "old.json").write_text(json.dumps(old))
    assert load_settings(tmp_path / "old.json").box_captions == "always"


def test_captions_of_a_screen_shown_before_its_ink_map_wait_for_it_and_land_where_they_would_have(qtbot, page):
    """A launch shows its first screen before the screen's ink map is made (step_view.py, ADR 0071): the captions
    are held back until the map comes, then placed as a screen shown with its map has them; without them held
    back, Help center's would sit on the unboxed "Returns" link for the moment the map took."""
    path, drawn = page
    window = open_window(qtbot, path)
    with_map = captions(window)
    assert not with_map["Help center"].intersects(in_view(window, drawn["Returns"]))

    scene, image_file = window.scene, window.ws.image_path()
    boxes = list(window.ws.boxes.values())
    shown = decode(image_file, ink=False)  # as a launch decodes its first screen
    assert shown.image is not None and shown.ink is None
    scene.load(shown, SIZE[0], SIZE[1], boxes)
    QApplication.processEvents()
    assert captions(window) == {}  # the screen and its boxes, not yet their captions
    assert len(window.scene.items_by_id) == len(boxes)

    scene.set_ink(decode(image_file), ink_of(shown.image))  # a map made for a screen no longer shown: dropped
    assert captions(window) == {}
    scene.set_ink(shown, ink_of(shown.image))
    assert captions(window) == with_map

    # a map that could not be made: the captions come anyway, placed without it
    again = decode(image_file, ink=False)
    scene.load(again, SIZE[0], SIZE[1], boxes)
    scene.set_ink(again, None)
    assert set(captions(window)) == set(with_map)


def test_selected_box_handles_do_not_cover_its_text(qtbot, page):
    path, _ = page
    window = open_window(qtbot, path)
    window.view.show_captions = False  # compare the box alone
    target = box_id(window, "Email address")
    item = window.scene.items_by_id[target]
    box = in_view(window, item.rect())
    hover(window, item.rect().center().x(), item.rect().center().y())
    assert item.hovered  # hovered: the same fill as selected, no handles
    hovered = grab(window)
    window.scene.select_ids([target])
    selected = grab(window)
    ratio = window.view.viewport().devicePixelRatio()
    inner = box.adjusted(3, 3, -3, -3)  # inside the outline (3 px wide when selected)
    changed = [(x, y) for x in range(int(inner.left()), int(inner.right()))
               for y in range(int(inner.top()), int(inner.bottom()))
               if hovered.pixelColor(int(x * ratio), int(y * ratio)) != selected.pixelColor(int(x * ratio),
                                                                                           int(y * ratio))]
    assert changed == []
    # the handles are there, just outside: the corner handle is painted in the label's colour
    colour = window.scene.style.colors[item.label]
    corner = selected.pixelColor(int((box.left() - 3) * ratio), int((box.top() - 3) * ratio))
    assert corner == colour
    # and they still resize: drag the top edge's handle, just above the edge, upwards
    rect = item.rect()
    drag(window.view, (rect.center().x(), rect.top() - 3), (rect.center().x(), rect.top() - 23))
    assert item.rect().top() == pytest.approx(rect.top() - 20, abs=1)


# prediction tags ---------------------------------------------------------------------------------------------
def test_prediction_tags_keep_off_captions_and_each_other(qtbot, page):
    path, _ = page
    window = open_window(qtbot, path)
    show_predictions(window)
    tags = tags_in_view(window)
    close_caption = captions(window)[CLOSE_CAPTION]
    for run, (_, rect) in tags.items():
        assert not rect.intersects(close_caption), run
        for other, (_, other_rect) in tags.items():
            if other != run:
                assert not rect.intersects(other_rect), (run, other)
    # and no caption hides a marker's cross
    for run in (1, 6):
        point = next(r["point"] for r in PREDICTIONS if r["run"] == run)
        cross = in_view(window, (point[0] - 4, point[1] - 4, point[0] + 4, point[1] + 4))
        assert all(not rect.intersects(cross) for rect in captions(window).values()), run


def test_a_point_outside_the_image_is_drawn_on_its_edge_and_says_so(qtbot, page):
    path, _ = page
    window = open_window(qtbot, path)
    show_predictions(window)
    tag = next(t for t in window.scene.predictions.tags(window.view.scale_factor()) if t.mark.run_id == 2)
    assert tag.outside and "outside" in tag.text
    assert tag.anchor == QPointF(SIZE[0], 300)  # on the right edge, level with the point
    assert window.scene.image_rect.contains(tag.rect)  # its tag is on the screenshot, where it can be read
    # painted: the arrow in the run's colour just inside the edge; nothing where the point really is
    image = grab(window)
    ratio = window.view.viewport().devicePixelRatio()
    colour = run_colour(2)

    def run_pixels(x1, x2):
        return [x for x in range(x1, x2) for y in range(295, 306)
                if image.pixelColor(window.view.mapFromScene(QPointF(x, y)) * ratio) == colour]

    assert run_pixels(SIZE[0] - 14, SIZE[0])
    assert not run_pixels(SIZE[0] + 2, SIZE[0] + 200)
    # the tooltip over the arrow gives the coordinates the agent answered
    at = window.view.mapFromScene(QPointF(SIZE[0] - 3, 300))
    QApplication.sendEvent(window.view.viewport(), QHelpEvent(QEvent.ToolTip, at, window.view.viewport().mapToGlobal(at)))
    assert "(950, 300)" in QToolTip.text() and "outside" in QToolTip.text()
    QToolTip.hideText()


def test_answers_with_no_place_are_listed_in_the_legend_not_over_the_page(qtbot, page):
    path, drawn = page
    window = open_window(qtbot, path)
    window.view.set_scale(2.0, anchor_mouse=False)  # the page fills the view, its header spans the top
    window.view.horizontalScrollBar().setValue(0)
    window.view.verticalScrollBar().setValue(0)
    show_predictions(window)
    assert set(tags_in_view(window)) == {1, 2, 6}  # the three answers with no point have no tag on the page
    labels = [label for _, label in window.scene.predictions.legend_entries()]
    assert "#3 llava / direct: no answer" in labels and "#4 ui-tars / cot: wrong format" in labels
    assert "#5 seeclick / direct: no answer" in labels
    grab(window)  # paints, and so places, the legend
    viewport = QRectF(window.view.viewport().rect())
    legend = legend_rect(viewport, window.scene.predictions.legend_entries(), window.view.legend_corner)
    header = in_view(window, drawn["header"])
    assert header.left() < viewport.left() + legend.width() and header.right() > viewport.right() - legend.width()
    assert viewport.contains(legend)
    assert not legend.intersects(header)
    for rect in captions(window).values():
        assert not legend.intersects(rect)
    for _, rect in tags_in_view(window).values():
        assert not legend.intersects(rect)
