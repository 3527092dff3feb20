"""A box's class in the window (issue 35, ADR 0047/0048), driven through the real widgets: keys 4-9, the class
picker (C, then a number or a name), the Properties panel's Role and Class boxes, Edit > Classes of this project,
the list's class filter, and the canvas's caption. Every check reads the database, what survives the window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop_app import api
from desktop_app.store.project import Project
from desktop_app.ui.class_combo import resolve
from desktop_app.ui.class_picker import NONE, decided, matches
from desktop_app.ui.classes_dialog import ClassesDialog, typed_names

from gui_helpers import key
from test_gui_editing import open_window, stored

pytestmark = pytest.mark.gui

COCO = ("person", "bicycle", "car", "motorcycle", "airplane", "bus", "train", "truck", "boat", "traffic light",
        "fire hydrant", "stop sign", "parking meter", "bench", "bird", "cat", "dog", "horse", "sheep", "cow",
        "elephant", "bear", "zebra", "giraffe", "backpack", "umbrella", "handbag", "tie", "suitcase", "frisbee",
        "skis", "snowboard", "sports ball", "kite", "baseball bat", "baseball glove", "skateboard", "surfboard",
        "tennis racket", "bottle", "wine glass", "cup", "fork", "knife", "spoon", "bowl", "banana", "apple",
        "sandwich", "orange", "broccoli", "carrot", "hot dog", "pizza", "donut", "cake", "chair", "couch",
        "potted plant", "bed", "dining table", "toilet", "tv", "laptop", "mouse", "remote", "keyboard",
        "cell phone", "microwave", "oven", "toaster", "sink", "refrigerator", "book", "clock", "vase", "scissors",
        "teddy bear", "hair drier", "toothbrush")


def with_classes(path, names) -> None:
    with Project.open(path) as project:
        api.add_classes(project, list(names))


def first_box(window) -> int:
    """The first box of the screen shown, selected on the canvas as a click would."""
    box_id = min(window.scene.items_by_id)
    window.scene.select_ids([box_id])
    window.view.setFocus()
    QApplication.processEvents()
    return box_id


def category(path, window, box_id) -> str:
    return stored(path, window.ws.episode.key)[box_id].category


# -- what the picker decides from the keys typed (no window) -------------------------------------------------------
def test_a_number_is_taken_once_no_other_class_number_begins_with_it():
    assert len(COCO) == 80
    assert decided(COCO, "3") is None  # 30-39 exist
    assert decided(COCO, "37") == 37  # 370 is beyond 80: no other number begins 37
    assert decided(COCO, "8") is None and decided(COCO, "80") == 80  # 80 exists, so 8 waits for Enter
    assert decided(COCO, "9") == 9  # no class 90
    assert decided(COCO, "0") == 0  # no class
    assert decided(COCO, "81") is None and decided(COCO, "07") is None and decided(COCO, "car") is None
    assert decided(COCO[:5], "3") == 3  # five classes: every number is one key
    assert [n for n, _ in matches(COCO, "3")] == [3, *range(30, 40)]


def test_names_match_in_any_case_those_beginning_with_the_text_first():
    assert [name for _, name in matches(COCO, "car")] == ["car", "carrot"]
    assert [name for _, name in matches(COCO, "CAR")] == ["car", "carrot"]
    assert [name for _, name in matches(COCO, "ball")] == ["sports ball", "baseball bat", "baseball glove"]
    assert matches(COCO, "")[:2] == [(0, NONE), (1, "person")] and len(matches(COCO, "")) == 81
    assert matches(COCO, "none") == [(0, NONE)] and matches(COCO, "zzz") == []


def test_typed_names_and_a_typed_class():
    assert typed_names("button, icon ,, sports ball") == ["button", "icon", "sports ball"]
    assert typed_names("person\nbicycle\nred, car\n") == ["person", "bicycle", "red, car"]  # a pasted list
    assert resolve(("Car", "car", "Bus"), "car") == "car" and resolve(("Car", "car", "Bus"), "CAR") is None
    assert resolve(("Car", "Bus"), "bus") == "Bus" and resolve(("Car",), "(none)") == ""
    assert resolve(("Car",), "Truck") is None


# -- keys 4-9 ---------------------------------------------------------------------------------------------------------
def test_keys_4_to_9_give_the_selected_box_the_first_six_classes(qtbot, demo_copy):
    with_classes(demo_copy, ["button", "Car", "car", "icon", "sports ball", "link", "seventh"])
    window = open_window(qtbot, demo_copy)
    box_id = first_box(window)
    role = stored(demo_copy, window.ws.episode.key)[box_id].label

    key(window, "5")
    assert category(demo_copy, window, box_id) == "Car"  # class no. 2, case kept
    key(window, "6")
    assert category(demo_copy, window, box_id) == "car"
    key(window, "9")
    assert category(demo_copy, window, box_id) == "link"
    assert stored(demo_copy, window.ws.episode.key)[box_id].label == role  # the role stays
    assert window.properties.category.currentText() == "link"
    assert "link" in window.scene.items_by_id[box_id].caption
    key(window, "Ctrl+Z")
    assert category(demo_copy, window, box_id) == "car"


def test_a_key_with_no_class_behind_it_says_how_to_add_one(qtbot, demo_copy):
    with_classes(demo_copy, ["button"])
    window = open_window(qtbot, demo_copy)
    box_id = first_box(window)
    key(window, "7")
    assert category(demo_copy, window, box_id) == ""
    said = window.statusBar().currentMessage()
    assert "has 1 class, no class no. 4" in said and "Edit > Classes of this project" in said


# -- the class picker -------------------------------------------------------------------------------------------------
def test_the_picker_takes_class_37_of_80_in_three_keys_and_ctrl_z_undoes_it(qtbot, demo_copy):
    with_classes(demo_copy, COCO)
    window = open_window(qtbot, demo_copy)
    box_id = first_box(window)

    key(window, "C")
    picker = window.editing.picker()
    assert picker.isVisible() and picker.line.hasFocus()
    assert picker.shown_rows()[:3] == ["  0   (no class)", "  1   person", "  2   bicycle"]
    assert len(picker.shown_rows()) == 81
    key(picker.line, "3")
    assert picker.isVisible() and category(demo_copy, window, box_id) == ""  # 30-39 are still possible
    assert [row.split()[0] for row in picker.shown_rows()] == ["3", *map(str, range(30, 40))]
    key(picker.line, "7")
    assert not picker.isVisible()
    assert category(demo_copy, window, box_id) == COCO[36] == "skateboard"
    assert window.view.hasFocus()  # the canvas's keys work again

    key(window, "Ctrl+Z")
    assert category(demo_copy, window, box_id) == ""
    key(window, "Ctrl+Shift+Z")
    assert category(demo_copy, window, box_id) == "skateboard"


def test_the_picker_takes_a_typed_name_with_enter_and_clears_with_0(qtbot, demo_copy):
    with_classes(demo_copy, COCO)
    window = open_window(qtbot, demo_copy)
    box_id = first_box(window)
    before = stored(demo_copy, window.ws.episode.key)[box_id]

    key(window, "C")
    picker = window.editing.picker()
    qtbot.keyClicks(picker.line, "Ball")
    assert picker.shown_rows() == [" 33   sports ball", " 35   baseball bat", " 36   baseball glove"]
    key(picker.line, "Return")
    after = stored(demo_copy, window.ws.episode.key)[box_id]
    assert after.category == "sports ball" and after.label == before.label
    assert not picker.isVisible()

    key(window, "C")
    assert picker.list.currentItem().text() == " 33   sports ball"  # the box's class, highlighted
    key(picker.line, "Down")
    key(picker.line, "Return")  # the class below it
    assert category(demo_copy, window, box_id) == "kite"

    key(window, "C")
    key(picker.line, "0")
    assert category(demo_copy, window, box_id) == ""

    key(window, "C")
    qtbot.keyClicks(picker.line, "car")
    key(picker.line, "Esc")  # closes, nothing changed, and the selection stays
    assert not picker.isVisible() and category(demo_copy, window, box_id) == ""
    assert window.scene.selected_ids() == [box_id]


def test_the_picker_needs_a_selected_box_and_a_class(qtbot, demo_copy):
    window = open_window(qtbot, demo_copy)
    first_box(window)
    key(window, "C")
    assert "no class yet" in window.statusBar().currentMessage()
    window.close()

    with_classes(demo_copy, ["button"])
    window = open_window(qtbot, demo_copy)
    window.scene.clearSelection()
    key(window, "C")
    assert "Select a box first" in window.statusBar().currentMessage()
    assert getattr(window.editing, "_picker", None) is None or not window.editing.picker().isVisible()


# -- the Properties panel -------------------------------------------------------------------------------------------
def test_the_properties_role_and_class_boxes_show_and_set_the_selected_box(qtbot, demo_copy):
    with_classes(demo_copy, ["button", "Car", "car"])
    window = open_window(qtbot, demo_copy)
    box_id = first_box(window)
    props = window.properties
    role = props.label
    assert [role.itemText(i) for i in range(role.count())] == ["gold", "distracted", "other"]
    combo = props.category
    assert [combo.itemText(i) for i in range(combo.count())] == ["(none)", "button", "Car", "car"]
    assert combo.currentText() == "(none)"

    combo.activated.emit(combo.findData("Car"))  # picked from its list
    assert category(demo_copy, window, box_id) == "Car"

    qtbot.mouseClick(combo.lineEdit(), Qt.LeftButton)  # into the box: its keys, not the canvas's
    combo.lineEdit().selectAll()
    qtbot.keyClicks(combo.lineEdit(), "car")
    key(combo.lineEdit(), "Return")  # spelled so: "car", not the first match in any case
    assert category(demo_copy, window, box_id) == "car"

    combo.lineEdit().selectAll()
    qtbot.keyClicks(combo.lineEdit(), "Truck")
    key(combo.lineEdit(), "Return")
    assert category(demo_copy, window, box_id) == "car" and combo.currentText() == "car"
    assert "No class 'Truck'" in props.box_info.text()

    role.activated.emit(role.findData("distracted"))
    box = stored(demo_copy, window.ws.episode.key)[box_id]
    assert (box.label, box.category) == ("distracted", "car")

    key(window, "4")  # a key on the canvas: the panel follows
    assert combo.currentText() == "button"
    assert props.list.item(0).text().startswith("button · ") or any(
        props.list.item(r).text().startswith("button") for r in range(props.list.count()))


# -- Edit > Classes of this project --------------------------------------------------------------------------------
def test_the_classes_dialog_adds_several_and_refuses_to_remove_one_in_use(qtbot, demo_copy):
    window = open_window(qtbot, demo_copy)
    action = window.menu_actions["classes"]
    assert action.text() == "Classes of this project…" and action.isEnabled()
    dialog = ClassesDialog(window.project, window)
    qtbot.addWidget(dialog)
    dialog.changed.connect(window.editing.classes_changed)
    dialog.name.setText("button, icon, sports ball")
    dialog.add()
    assert api.classes(window.project) == ("button", "icon", "sports ball")
    assert dialog.list.item(2).text().startswith("  3   sports ball   (0 boxes)")
    assert dialog.name.text() == ""
    # the window follows: the Class box and the list's filter offer them
    assert window.properties.category.findData("icon") == 2
    assert window.browser.klass.findData("sports ball") >= 0

    dialog.name.setText("icon")
    dialog.add()
    assert "class 'icon' exists already" in dialog.error.text()
    assert dialog.name.text() == "icon"  # kept, to be corrected

    box_id = first_box(window)
    key(window, "5")  # icon
    dialog.refresh()
    assert "(1 box)" in dialog.list.item(1).text()
    dialog.list.setCurrentRow(1)
    dialog.remove()
    assert "1 box has the class 'icon'; change them first" in dialog.error.text()
    assert api.classes(window.project) == ("button", "icon", "sports ball")

    dialog.list.setCurrentRow(2)
    dialog.remove()
    assert dialog.error.text() == "" and api.classes(window.project) == ("button", "icon")
    assert window.properties.category.findData("sports ball") == -1
    assert category(demo_copy, window, box_id) == "icon"


# -- the list's class filter --------------------------------------------------------------------------------------
def test_the_list_filters_by_class_as_the_core_does(qtbot, demo_copy):
    with_classes(demo_copy, ["button", "icon"])
    window = open_window(qtbot, demo_copy)
    box_id = first_box(window)
    key(window, "5")  # icon, on the first sample's first box
    episode = window.ws.episode.id
    browser = window.browser
    total = browser.model.rowCount()

    browser.klass.setCurrentIndex(browser.klass.findData("icon"))
    assert browser.model.rowCount() == 1 and browser.current_episode_id() == episode
    assert browser.current_filter().classes == ("icon",)
    with Project.open(demo_copy) as project:
        assert api.count_samples(project, api.where(classes=["icon"])) == 1
    browser.klass.setCurrentIndex(browser.klass.findData("button"))
    assert browser.model.rowCount() == 0
    browser.klass.setCurrentIndex(0)
    assert browser.model.rowCount() == total
    assert category(demo_copy, window, box_id) == "icon"


def test_the_caption_names_the_class_before_the_text(qtbot, demo_copy):
    with_classes(demo_copy, ["Cookie banner"])
    window = open_window(qtbot, demo_copy)
    box_id = first_box(window)
    text = stored(demo_copy, window.ws.episode.key)[box_id].element_text
    key(window, "4")
    item = window.scene.items_by_id[box_id]
    assert item.caption == (f"Cookie banner · {text}" if text else "Cookie banner")
    shown = [place.text for place, _ in window.view.caption_rects() if place.box_id == box_id]
    assert shown and shown[0].startswith("Cookie banner")
    assert item.label in ("gold", "distracted", "other")  # the colour stays the role's


# -- the dashboard's split by class ---------------------------------------------------------------------------------
def test_the_dashboard_splits_the_rates_by_the_class_of_the_gold_box(qtbot, demo_copy):
    from test_class_selection import _classed

    from desktop_app.evaluation.rows import rule_rows
    from desktop_app.evaluation.tables import METRIC_VERDICT
    from desktop_app.ui.eval.dashboard import DashboardWidget

    episode, _ = _classed(demo_copy)  # the gold box of one popup sample is an "icon"
    with Project.open(demo_copy) as project:
        api.run(project, "center", api.where(scenarios=("popup",)))
        (run,) = api.runs(project)
        dashboard = DashboardWidget()
        qtbot.addWidget(dashboard)
        dashboard.resize(1100, 700)
        dashboard.show()
        with qtbot.waitSignal(dashboard.refreshed, timeout=10000):
            dashboard.refresh(project, [run.id])
        assert [dashboard.breakdown.itemText(i) for i in range(dashboard.breakdown.count())][-1] == "By class"
        dashboard.set_breakdown("class")
        table = dashboard.table()
        assert table.column_field == "class" and table.data_columns() == ["(no class)", "icon"]
        assert table.cell(("center", "direct"), "icon")["n"] == 1
        assert {b.column for b in dashboard.bars} == {"(no class)", "icon"}
        # the bar of the verdict center's answer on the icon sample got: a click lists that sample
        (verdict,) = {r["verdict"] for r in rule_rows(project, [run.id]) if r["episode_id"] == episode}
        metric = {v: k for k, v in METRIC_VERDICT.items()}[verdict]
        bar = next(b for b in dashboard.bars if b.column == "icon" and b.metric == metric)
        info = dashboard.bar_info(bar)
        assert (info["class"], info["verdict"], info["run_ids"]) == ("icon", verdict, [run.id])
        assert info["episode_ids"] == [episode]
