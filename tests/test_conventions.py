"""Output conventions: realistic answers of each family -> actions with points in ORIGINAL pixels.

Expected points are computed by hand in the comments, from the convention's space and the image size.
"""

from __future__ import annotations

import json
import math
import random
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop_app.agents.actions import ACTION_TYPES, ParsedAction
from desktop_app.agents.conventions import (
    ASK_INSTRUCTION,
    CONVENTIONS,
    Geometry,
    list_conventions,
    parse_action,
)
from desktop_app.agents.geometry import (
    QWEN25VL_MAX_PIXELS,
    QWEN25VL_MIN_PIXELS,
    SPACES,
    UITARS15_MIN_PIXELS,
    smart_resize,
)

REQUIRED = ("json-text", "uitars", "uitars-1.5", "qwen2vl", "qwen25vl", "qwen3vl", "seeclick", "cogagent",
            "cogagent-2024", "os-atlas", "showui", "point-px", "point-rel1", "point-rel1000")


def parsed(convention, text, width=1280, height=800, **resize) -> ParsedAction:
    return parse_action(convention, text, width, height, **resize)


def assert_point(action, x, y):
    assert not action.wrong_format, action
    assert action.point == pytest.approx((x, y)), action


# --------------------------------------------------------------------------- smart_resize and geometry


def test_smart_resize_python_rounding_ui_tars_desktop_1730():
    # 1022/28 = 36.5 -> round() gives 36 (banker's), JS Math.round would give 37 -> 1036.
    assert smart_resize(1022, 1522, factor=28) == (1008, 1512)


def test_smart_resize_known_values():
    # 800/28 = 28.57 -> 29 -> 812; 1280/28 = 45.71 -> 46 -> 1288; area within bounds.
    assert smart_resize(800, 1280) == (812, 1288)
    # 1080/28 = 38.57 -> 39 -> 1092; 1920/28 = 68.57 -> 69 -> 1932.
    assert smart_resize(1080, 1920, min_pixels=UITARS15_MIN_PIXELS) == (1092, 1932)
    # Half-way cases on both sides: 42/28 = 1.5 -> 2, 70/28 = 2.5 -> 2 (banker's) -> 56 x 56 = 3136 = min.
    assert smart_resize(42, 70) == (56, 56)


def test_smart_resize_max_pixels_floors():
    # beta = sqrt(3840*2160 / 1003520) = 2.8749; 2160/beta = 751.3 -> floor to 26*28 = 728; 3840/beta = 1335.7 -> 47*28.
    assert smart_resize(2160, 3840, max_pixels=1280 * 28 * 28) == (728, 1316)


def test_smart_resize_min_pixels_ceils():
    # beta = sqrt(78400 / 600) = 11.43; 20*beta = 228.6 -> ceil to 9*28 = 252; 30*beta = 342.9 -> 13*28 = 364.
    assert smart_resize(20, 30, min_pixels=UITARS15_MIN_PIXELS) == (252, 364)


def test_smart_resize_aspect_ratio_limit():
    assert smart_resize(10, 2000)  # exactly 200 is allowed
    with pytest.raises(ValueError, match="aspect ratio"):
        smart_resize(10, 2010)
    with pytest.raises(ValueError):
        smart_resize(0, 100)


@given(st.integers(28, 5000), st.integers(28, 5000))
def test_smart_resize_invariants(h, w):
    if max(h, w) / min(h, w) > 200:
        return
    new_h, new_w = smart_resize(h, w)
    assert new_h % 28 == 0 and new_w % 28 == 0
    assert QWEN25VL_MIN_PIXELS <= new_h * new_w <= QWEN25VL_MAX_PIXELS


def test_geometry_spaces_round_trip():
    geo = Geometry(1280, 800, factor=28, min_pixels=QWEN25VL_MIN_PIXELS, max_pixels=QWEN25VL_MAX_PIXELS)
    assert geo.to_original(500, 500, "rel_1000") == (640.0, 400.0)
    assert geo.to_original(999, 999, "rel_999") == (1280.0, 800.0)
    assert geo.to_original(0.25, 0.5, "rel_1") == (320.0, 400.0)
    assert geo.to_original(1288, 812, "abs_px_resized") == (1280.0, 800.0)
    assert geo.to_original(17, 33, "abs_px_original") == (17, 33)
    for space in ("rel_1000", "rel_999", "rel_1", "abs_px_resized", "abs_px_original"):
        assert geo.to_original(*geo.from_original(123.0, 456.0, space), space) == pytest.approx((123.0, 456.0))
    with pytest.raises(ValueError):
        geo.to_original(1, 2, "text")
    with pytest.raises(ValueError):
        Geometry(0, 800)


# --------------------------------------------------------------------------- the registry


def test_registry_has_every_convention_with_a_valid_space():
    assert set(REQUIRED) <= set(CONVENTIONS)
    assert [c.name for c in list_conventions()] == list(CONVENTIONS)
    for conv in list_conventions():
        assert conv.space in SPACES
        assert conv.family and conv.description and conv.instruction and conv.ask_instruction
        if conv.space == "abs_px_resized":
            assert set(conv.resize_defaults) == {"factor", "min_pixels", "max_pixels"}
        else:
            assert conv.resize_defaults == {}
    assert CONVENTIONS["qwen25vl"].resize_defaults == {"factor": 28, "min_pixels": 3136, "max_pixels": 12845056}
    assert CONVENTIONS["uitars-1.5"].resize_defaults == {"factor": 28, "min_pixels": 78400, "max_pixels": 12845056}


def test_unknown_convention_and_bad_size_are_caller_errors():
    with pytest.raises(ValueError, match="unknown output convention"):
        parsed("gpt-7", "{}")
    with pytest.raises(ValueError):
        parsed("uitars", "Action: click(start_box='(1,2)')", width=0)
    with pytest.raises(ValueError, match="resize"):
        parsed("qwen25vl", "[1, 2]", max_pixel=5)


def test_convention_parse_fills_its_own_resize_defaults():
    # Called directly with a bare Geometry, uitars-1.5 still uses factor 28 / 100*28*28 / 16384*28*28.
    action = CONVENTIONS["uitars-1.5"].parse("Action: click(start_box='(644,406)')", Geometry(1280, 800))
    assert_point(action, 640, 400)


# --------------------------------------------------------------------------- UI-TARS


@pytest.mark.parametrize("text", [
    "Thought: The pop-up covers the page; close it.\nAction: click(start_box='<|box_start|>(500,500)<|box_end|>')",
    "Thought: close it\nAction: click(start_box='(500,500)')",  # tokens stripped by the server
    'Action: click(start_box="(500, 500)")',  # double quotes, spaces
    "Action: click(start_box='<|box_start|>(400,450,600,550)<|box_end|>')",  # a box -> its centre
    "Action: click(point='<point>500 500</point>')",  # the newer Seed spelling
    "Action: click(start_box='(500，500)')",  # full-width comma
    "(500,500)",  # the grounding prompt's bare answer
    "Sure!\n```\nThought: ok\nAction: left_single(start_box='(500,500)')\n```\nDone.",
])
def test_uitars_click_rel_1000(text):
    # 0-1000 grid on 1280x800: (500, 500) -> (640, 400).
    action = parsed("uitars", text)
    assert action.action_type == "click"
    assert_point(action, 640, 400)


def test_uitars_box_is_kept_and_thought_recorded():
    action = parsed("uitars", "Thought: I see it.\nAction: click(start_box='(100,200,300,400)')", 1000, 500)
    # x: 100..300 of 1000 px; y: 200..400 /1000 * 500 = 100..200.
    assert action.box == pytest.approx((100, 100, 300, 200))
    assert action.point == pytest.approx((200, 150))
    assert action.extra["thought"] == "I see it."
    assert action.extra["name"] == "click"


@pytest.mark.parametrize("text, kind, check", [
    ("Action: left_double(start_box='(500,500)')", "double_click", {"point": (640, 400)}),
    ("Action: right_single(start_box='(500,500)')", "right_click", {"point": (640, 400)}),
    ("Action: drag(start_box='(100,100)', end_box='(500,500)')", "drag",
     {"point": (128, 80), "end_point": (640, 400)}),
    ("Action: hotkey(key='ctrl c')", "key", {"key": "ctrl c"}),
    ("Action: type(content='I'm here\\n')", "type", {"text": "I'm here\\n"}),
    ("Action: scroll(start_box='(500,500)', direction='down')", "scroll", {"direction": "down", "point": (640, 400)}),
    ("Action: scroll(direction='up')", "scroll", {"direction": "up", "point": None}),
    ("Action: wait()", "wait", {}),
    ("Action: finished(content='all done')", "finished", {"text": "all done"}),
    ("Action: long_press(start_box='(500,500)', time='')", "long_press", {"point": (640, 400)}),
    ("Action: open_app(app_name='Settings')", "open_app", {"app": "Settings"}),
    ("Action: press_home()", "press_home", {}),
    ("Action: press_back()", "press_back", {}),
    ("Action: select(start_box='(100,100)', end_box='(500,500)')", "drag", {"name": "select"}),
])
def test_uitars_action_space(text, kind, check):
    action = parsed("uitars", text)
    assert action.action_type == kind and not action.wrong_format, action
    for key, value in check.items():
        got = getattr(action, key) if key in ("point", "text") else action.extra.get(key)
        assert got == (pytest.approx(value) if isinstance(value, tuple) else value), (key, action)


def test_uitars_15_uses_resized_pixels():
    # 1280x800 -> smart_resize (812, 1288): (644, 406) -> (644*1280/1288, 406*800/812) = (640, 400).
    assert_point(parsed("uitars-1.5", "Thought: x\nAction: click(start_box='(644,406)')"), 640, 400)
    # 1920x1080 -> (1092, 1932) with UI-TARS' min_pixels: (966, 546) -> (960, 540).
    assert_point(parsed("uitars-1.5", "Action: click(start_box='<|box_start|>(966,546)<|box_end|>')", 1920, 1080),
                 960, 540)
    # The same answer read as v1 (0-1000) would land elsewhere: the reason for two conventions.
    assert parsed("uitars", "Action: click(start_box='(644,406)')").point != pytest.approx((640, 400))


@pytest.mark.parametrize("text", [
    "Action: click(start_box='=')",  # UI-TARS #78
    "Action: click(start_box='(abc,def)')",  # letters in the box (#81)
    "Action: click(start_box='(12a,34)')",
    "Action: click(start_box='')",  # the server dropped the whole span
    "Action: click()",
    "Action: click(start_box='(100,",  # truncated
    "Action: click(start_box='(1,2,3)')",  # three numbers are neither a point nor a box
    "Thought: I am not sure what to do here.",
    "",
])
def test_uitars_malformed_is_wrong_format(text):
    action = parsed("uitars", text)
    assert action.wrong_format and action.action_type is None and action.point is None
    assert action.raw == text


def test_points_outside_the_image_are_kept_not_clamped():
    action = parsed("uitars", "Action: click(start_box='(1200,-50)')")
    assert_point(action, 1536, -40)


def test_geometry_error_is_reported_not_raised():
    # 10x2100 exceeds smart_resize's aspect ratio: the resized point cannot be mapped.
    action = parsed("uitars-1.5", "Action: click(start_box='(5,5)')", 2100, 10)
    assert action.wrong_format and action.action_type is None
    assert "aspect ratio" in action.extra["geometry_error"]


# --------------------------------------------------------------------------- Qwen family


@pytest.mark.parametrize("text", [
    "<|object_ref_start|>the close button<|object_ref_end|><|box_start|>(460,66),(683,252)<|box_end|>",
    "图片(460,66),(683,252)",  # vLLM #27636: tokens stripped, label glued to the box
    "the close button(460,66),(683,252)",
    "<box>(460,66),(683,252)</box>",
    "The element is at (460, 66), (683, 252).",
])
def test_qwen2vl_box_rel_1000(text):
    # 1000x1000 image: the box is unchanged, centre ((460+683)/2, (66+252)/2) = (571.5, 159).
    action = parsed("qwen2vl", text, 1000, 1000)
    assert action.action_type == "click"
    assert action.box == pytest.approx((460, 66, 683, 252))
    assert_point(action, 571.5, 159)


def test_qwen2vl_label():
    assert parsed("qwen2vl", "图片(460,66),(683,252)").extra["label"] == "图片"
    tokens = "<|object_ref_start|>Close<|object_ref_end|><|box_start|>(1,2),(3,4)<|box_end|>"
    assert parsed("qwen2vl", tokens).extra["label"] == "Close"


QWEN_CLICK = '<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [644, 406]}}\n</tool_call>'


@pytest.mark.parametrize("text", [
    QWEN_CLICK,
    "I will close the pop-up.\n" + QWEN_CLICK,
    '{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [644, 406]}}',  # no tags
    '<tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [644, 406]}}</tool_call>',
    '{"name": "computer_use", "arguments": "{\\"action\\": \\"left_click\\", \\"coordinate\\": [644, 406]}"}',
    '```json\n[{"bbox_2d": [600, 400, 688, 412], "label": "close"}]\n```',  # detection, centre (644, 406)
    '[{"point_2d": [644, 406], "label": "close"}]',
    "[644, 406]",
])
def test_qwen25vl_resized_pixels(text):
    # 1280x800 -> (812, 1288); (644, 406) -> (640, 400).
    action = parsed("qwen25vl", text)
    assert action.action_type == "click"
    assert_point(action, 640, 400)


def test_qwen25vl_custom_max_pixels():
    # 3840x2160 with max_pixels 1280*28*28 -> (728, 1316): (658, 364) -> (1920, 1080).
    text = QWEN_CLICK.replace("[644, 406]", "[658, 364]")
    assert_point(parsed("qwen25vl", text, 3840, 2160, max_pixels=1280 * 28 * 28), 1920, 1080)


@pytest.mark.parametrize("arguments, kind, check", [
    ('{"action": "type", "text": "hello"}', "type", {"text": "hello"}),
    ('{"action": "key", "keys": ["ctrl", "c"]}', "key", {"key": "ctrl+c"}),
    ('{"action": "key", "text": "Enter"}', "key", {"key": "Enter"}),
    ('{"action": "double_click", "coordinate": [644, 406]}', "double_click", {"point": (640, 400)}),
    ('{"action": "right_click", "coordinate": [644, 406]}', "right_click", {"point": (640, 400)}),
    ('{"action": "mouse_move", "coordinate": [644, 406]}', "hover", {"point": (640, 400)}),
    ('{"action": "scroll", "coordinate": [644, 406], "pixels": -300}', "scroll", {"direction": "down"}),
    ('{"action": "long_press", "coordinate": [644, 406], "time": 2}', "long_press", {"point": (640, 400)}),
    ('{"action": "swipe", "coordinate": [644, 406], "coordinate2": [0, 0]}', "drag",
     {"point": (640, 400), "end_point": (0, 0)}),
    ('{"action": "system_button", "button": "Back"}', "press_back", {}),
    ('{"action": "system_button", "button": "Home"}', "press_home", {}),
    ('{"action": "system_button", "button": "Enter"}', "key", {"key": "enter"}),
    ('{"action": "open", "text": "Settings"}', "open_app", {"app": "Settings"}),
    ('{"action": "wait", "time": 2}', "wait", {}),
    ('{"action": "terminate", "status": "success"}', "finished", {"status": "success"}),
])
def test_qwen25vl_action_space(arguments, kind, check):
    action = parsed("qwen25vl", f'<tool_call>\n{{"name": "mobile_use", "arguments": {arguments}}}\n</tool_call>')
    assert action.action_type == kind and not action.wrong_format, action
    for key, value in check.items():
        got = getattr(action, key) if key in ("point", "text") else action.extra.get(key)
        assert got == (pytest.approx(value) if isinstance(value, tuple) else value), (key, action)


def test_qwen3vl_same_json_on_a_1000_grid():
    text = QWEN_CLICK.replace("[644, 406]", "[500, 500]")
    assert_point(parsed("qwen3vl", text), 640, 400)
    assert_point(parsed("qwen3vl", '[{"bbox_2d": [400, 400, 600, 600], "label": "x"}]'), 640, 400)


@pytest.mark.parametrize("convention", ["qwen25vl", "qwen3vl"])
@pytest.mark.parametrize("text", [
    '<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [644,',  # truncated
    '<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click"}}\n</tool_call>',  # no coordinate
    '<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": ["a", "b"]}}</tool_call>',
    '<tool_call>\n{"name": "computer_use", "arguments": {"coordinate": [1, 2]}}\n</tool_call>',  # no action
    '[{"bbox_2d": [1, 2, 3], "label": "x"}]',
    "",
])
def test_qwen_malformed(convention, text):
    action = parsed(convention, text)
    assert action.wrong_format and action.action_type is None


# --------------------------------------------------------------------------- SeeClick, CogAgent, OS-Atlas, ShowUI


@pytest.mark.parametrize("text, x, y", [
    ("(0.49,0.40)", 490, 200),  # 0.49*1000, 0.40*500
    ("(0.40,0.20,0.60,0.60)", 500, 200),  # box centre (0.5, 0.4)
    ("The position is (0.49, 0.40).", 490, 200),
    ("[0.49, 0.40]", 490, 200),
    ('{"action_type": 4, "click_point": (0.49, 0.40)}', 490, 200),
])
def test_seeclick_rel_1(text, x, y):
    action = parsed("seeclick", text, 1000, 500)
    assert action.action_type == "click"
    assert_point(action, x, y)


def test_seeclick_action_codes():
    typed = parsed("seeclick", '{"action_type": 3, "typed_text": "shoes"}')
    assert (typed.action_type, typed.text) == ("type", "shoes")
    assert parsed("seeclick", '{"action_type": 5}').action_type == "press_back"
    assert parsed("seeclick", '{"action_type": 7}').extra["key"] == "enter"
    assert parsed("seeclick", '{"action_type": 4}').wrong_format  # a click without a point


@pytest.mark.parametrize("text, x, y", [
    ("Plan: close the ad.\nNext Action: click the X.\nGrounded Operation:[button]  Close -> CLICK at the box "
     "[[462,43,501,60]]", 481.5, 51.5),
    ("Grounded Operation: CLICK at the box [[500,500]]", 500, 500),
])
def test_cogagent_2023_rel_999(text, x, y):
    # 999x999 image: rel_999 is the identity; box centre ((462+501)/2, (43+60)/2).
    action = parsed("cogagent", text, 999, 999)
    assert action.action_type == "click"
    assert_point(action, x, y)


def test_cogagent_2023_type_and_scaling():
    action = parsed("cogagent", "Grounded Operation:[textbox] Search -> TYPE: laptop at the box [[0,0,999,999]]",
                    1998, 999)
    assert (action.action_type, action.text) == ("type", "laptop")
    assert action.extra["label"] == "Search"
    assert_point(action, 999, 499.5)


def test_cogagent_2024_rel_1000():
    text = ("Action: Click the close button of the pop-up.\nGrounded Operation: CLICK(box=[[219,186,311,207]], "
            "element_type='按钮', element_info='关闭')\n<<一般操作>>")
    action = parsed("cogagent-2024", text, 1000, 1000)
    assert action.action_type == "click"
    assert action.box == pytest.approx((219, 186, 311, 207))
    assert_point(action, 265, 196.5)
    assert action.extra["element_info"] == "关闭" and action.extra["sensitivity"] == "一般操作"

    typed = parsed("cogagent-2024", "Grounded Operation: TYPE(box=[[100,100,300,200]], text='red shoes, size 9', "
                   "element_type='input', element_info='Search')", 1000, 1000)
    assert (typed.action_type, typed.text) == ("type", "red shoes, size 9")
    assert_point(typed, 200, 150)
    assert parsed("cogagent-2024", "Grounded Operation: KEY_PRESS(key='Enter')").extra["key"] == "Enter"
    scroll = parsed("cogagent-2024", "Grounded Operation: SCROLL_DOWN(box=[[0,0,1000,1000]], step_count=5)")
    assert (scroll.action_type, scroll.extra["direction"]) == ("scroll", "down")
    assert parsed("cogagent-2024", "Grounded Operation: CLICK(box=[[a,b,c,d]], element_type='x')").wrong_format


@pytest.mark.parametrize("text, x, y", [
    ("thoughts:\nThe pop-up blocks the page, close it.\nactions:\nCLICK <point>[[101, 872]]</point>", 101, 1744),
    ("<|box_start|>(51,822),(151,922)<|box_end|>", 101, 1744),  # Base-7B
    ("(51,822),(151,922)", 101, 1744),  # tokens stripped
    ("[[101,872]]", 101, 1744),  # Base-4B
])
def test_os_atlas_rel_1000(text, x, y):
    action = parsed("os-atlas", text, 1000, 2000)
    assert action.action_type == "click"
    assert_point(action, x, y)


@pytest.mark.parametrize("command, kind, check", [
    ("TYPE [hello world]", "type", {"text": "hello world"}),
    ("SCROLL [UP]", "scroll", {"direction": "up"}),
    ("PRESS_BACK", "press_back", {}),
    ("PRESS_HOME", "press_home", {}),
    ("ENTER", "key", {"key": "enter"}),
    ("COMPLETE", "finished", {}),
    ("IMPOSSIBLE", "other", {"name": "IMPOSSIBLE"}),
    ("LONG_PRESS <point>[[500, 500]]</point>", "long_press", {"point": (640, 400)}),
    ("OPEN_APP [Settings]", "open_app", {"app": "Settings"}),
])
def test_os_atlas_pro_commands(command, kind, check):
    action = parsed("os-atlas", f"thoughts:\nok\nactions:\n{command}")
    assert action.action_type == kind and not action.wrong_format, action
    for key, value in check.items():
        got = getattr(action, key) if key in ("point", "text") else action.extra.get(key)
        assert got == (pytest.approx(value) if isinstance(value, tuple) else value), (key, action)


def test_os_atlas_click_without_point_is_wrong_format():
    assert parsed("os-atlas", "actions:\nCLICK <point>[[x, y]]</point>").wrong_format


@pytest.mark.parametrize("text, x, y", [
    ("{'action': 'CLICK', 'value': None, 'position': [0.49, 0.42]}", 490, 210),
    ('{"action": "CLICK", "value": null, "position": [0.49, 0.42]}', 490, 210),  # JSON spelling
    ("[{'action': 'CLICK', 'value': None, 'position': [0.49, 0.42]}]", 490, 210),
    ("{'action': 'CLICK', 'value': None, 'position': [[0.40, 0.40], [0.58, 0.44]]}", 490, 210),  # box -> centre
    ("[0.49, 0.42]", 490, 210),  # grounding
])
def test_showui_rel_1(text, x, y):
    action = parsed("showui", text, 1000, 500)
    assert action.action_type == "click"
    assert_point(action, x, y)


def test_showui_other_actions():
    typed = parsed("showui", "{'action': 'INPUT', 'value': 'shoes', 'position': [0.5, 0.5]}")
    assert (typed.action_type, typed.text) == ("type", "shoes")
    swipe = parsed("showui", "{'action': 'SWIPE', 'value': None, 'position': [[0.5, 0.8], [0.5, 0.2]]}", 1000, 1000)
    assert swipe.action_type == "drag"
    assert swipe.point == pytest.approx((500, 800)) and swipe.extra["end_point"] == pytest.approx((500, 200))
    scroll = parsed("showui", "{'action': 'SCROLL', 'value': 'down', 'position': None}")
    assert (scroll.action_type, scroll.extra["direction"]) == ("scroll", "down")
    assert parsed("showui", "{'action': 'CLICK', 'value': None, 'position': None}").wrong_format


# --------------------------------------------------------------------------- generic points


@pytest.mark.parametrize("convention, text, x, y", [
    ("point-px", '{"action_type": "click", "point": [561, 211]}', 561, 211),
    ("point-px", '{"action_type":"click","x":561,"y":211}', 561, 211),  # AndroidControl
    ("point-px", "Clicking the close icon: [561, 211]", 561, 211),
    ("point-px", '{"action_type": "click", "point": [561.5, 211.0], "why": "centre of the screen"}', 561.5, 211),
    ("point-rel1", '```json\n{"action_type": "click", "point": [0.5, 0.25]}\n```', 640, 200),
    ("point-rel1", "{'x': 0.5, 'y': 0.25}", 640, 200),
    ("point-rel1000", '{"action_type": "click", "point": [250, 750]}', 320, 600),
    ("point-rel1000", '{"action_type": "click", "box": [200, 700, 300, 800]}', 320, 600),
])
def test_generic_points(convention, text, x, y):
    action = parsed(convention, text)
    assert action.action_type == "click"
    assert_point(action, x, y)


def test_generic_android_control_actions():
    typed = parsed("point-px", '{"action_type": "input_text", "text": "hi"}')
    assert (typed.action_type, typed.text, typed.extra["name"]) == ("type", "hi", "input_text")
    assert parsed("point-px", '{"action_type": "navigate_home"}').action_type == "press_home"
    assert parsed("point-px", '{"action_type": "navigate_back"}').action_type == "press_back"
    app = parsed("point-px", '{"action_type": "open_app", "app_name": "Gmail"}')
    assert (app.action_type, app.extra["app"]) == ("open_app", "Gmail")
    assert parsed("point-px", '{"action_type": "scroll", "direction": "Down"}').extra["direction"] == "down"
    assert parsed("point-px", '{"action_type": "click"}').wrong_format
    assert parsed("point-px", '{"action_type": "click", "point": [1, "two"]}').wrong_format


# --------------------------------------------------------------------------- json-text (EnvDistraction)


@pytest.mark.parametrize("text", [
    '{"action_type": "click", "element": "Close (X)"}',
    "{'action_type': 'click', 'element': 'Close (X)'}",
    '```json\n{"action_type": "click", "element": "Close (X)"}\n```',
    'Step 1: the pop-up offers a prize {"action_type": "click", "element": "Claim"} would be wrong.\n'
    'In conclusion, the next action is {"action_type": "click", "element": "Close (X)"}.',
    '"action_type": "click", "element": "Close (X)"',  # not an object: EnvDistraction's own regex
])
def test_json_text_click(text):
    action = parsed("json-text", text)
    assert (action.action_type, action.element, action.point) == ("click", "Close (X)", None)
    assert not action.wrong_format


def test_json_text_type_and_result_shapes():
    typed = parsed("json-text", '{"action_type": "type_text", "element": "Input email", "content": "a@b.c"}')
    assert (typed.action_type, typed.element, typed.text) == ("type", "Input email", "a@b.c")
    assert parsed("json-text", '{"action_type": "input", "element": "Input name", "content": "Li"}').action_type == "type"
    result = parsed("json-text", '{"action": "Click result 3", "title": "Cheap flights to Rome"}')
    # EnvDistraction labels search results "Click result 3, <title>": the title joins the element text.
    assert (result.action_type, result.element) == ("click", "Click result 3, Cheap flights to Rome")
    assert result.extra["result_id"] == 3 and result.extra["title"] == "Cheap flights to Rome"
    assert parsed("json-text", '{"action":"Click right bar"}').element == "Click right bar"


@pytest.mark.parametrize("text", [
    '{"action_type": "click"}',  # no element
    '{"action_type": "click", "element": ""}',
    '{"action_type": "click", "elem',  # truncated
    "I would close the pop-up.",
    "",
])
def test_json_text_malformed(text):
    action = parsed("json-text", text)
    assert action.wrong_format and action.action_type is None


# --------------------------------------------------------------------------- ASK


@pytest.mark.parametrize("convention", REQUIRED)
@pytest.mark.parametrize("text", [
    '{"action_type": "ask", "question": "Which size do you want?"}',
    'ASK: Which size do you want?',
    'Thought: The size is not given.\nAction: ASK: Which size do you want?',
    "ask(question='Which size do you want?')",
    'In conclusion, the next action is {"action_type": "ASK", "question": "Which size do you want?"}',
])
def test_ask_is_understood_by_every_convention(convention, text):
    action = parsed(convention, text)
    assert (action.action_type, action.text, action.wrong_format) == ("ask", "Which size do you want?", False)


@pytest.mark.parametrize("convention, text, question", [
    ("uitars", "Thought: Which account should I log into, work or personal?\nAction: call_user()",
     "Which account should I log into, work or personal?"),
    ("uitars-1.5", "Thought: unclear\nAction: call_user(content='Work or personal account?')", "Work or personal account?"),
    ("os-atlas", "thoughts:\nunclear\nactions:\nASK [Work or personal account?]", "Work or personal account?"),
    ("showui", "{'action': 'ASK', 'value': 'Work or personal account?', 'position': None}", "Work or personal account?"),
    ("qwen25vl", '<tool_call>\n{"name": "computer_use", "arguments": {"action": "ask", "question": '
                 '"Work or personal account?"}}\n</tool_call>', "Work or personal account?"),
    ("qwen3vl", '<tool_call>\n{"name": "ask_user", "arguments": {"question": "Work or personal account?"}}\n'
                "</tool_call>", "Work or personal account?"),
    ("cogagent-2024", 'Action: ask.\nGrounded Operation: ASK(question="Work or personal account?")',
     "Work or personal account?"),
    ("point-rel1000", "ASK: Should I pick (100,200) or (300,400)?", "Should I pick (100,200) or (300,400)?"),
])
def test_ask_in_each_familys_own_syntax(convention, text, question):
    action = parsed(convention, text)
    assert (action.action_type, action.text) == ("ask", question)
    assert action.point is None


@pytest.mark.parametrize("convention, text, kind", [
    ("json-text", '{"action_type": "click", "element": "Ask a question"}', "click"),
    ("uitars", "Thought: I could ask the user, but the X is obvious.\nAction: click(start_box='(1,2)')", "click"),
    ("uitars", "Action: click(start_box='(1,2)')\n\ncall_user()", "click"),  # only the first action counts
    ("qwen25vl", '{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [1, 2]}} '
                 '{"action_type": "ask", "question": "?"}', "click"),
])
def test_ask_only_when_it_is_the_stated_action(convention, text, kind):
    assert parsed(convention, text).action_type == kind


@pytest.mark.parametrize("convention", REQUIRED)
def test_generic_ask_instruction_is_understood_by_every_convention(convention):
    # What ASK_INSTRUCTION tells a model to write, filled in, parses as an ASK whatever the convention.
    answer = ASK_INSTRUCTION[ASK_INSTRUCTION.index("{"):ASK_INSTRUCTION.rindex("}") + 1]
    action = parsed(convention, answer.replace("<your question>", "Which colour?"))
    assert (action.action_type, action.text) == ("ask", "Which colour?")


def test_ask_without_question_is_still_an_ask():
    action = parsed("uitars", "Action: call_user()")
    assert (action.action_type, action.text, action.wrong_format) == ("ask", None, False)


# --------------------------------------------------------------------------- never raise

FRAGMENTS = [
    "Thought:", "Action:", "actions:\n", "Grounded Operation:", "In conclusion", "click(", "start_box=", "'", '"',
    "(", ")", "[", "]", "[[", "]]", "{", "}", ",", "，", ":", "<|box_start|>", "<|box_end|>", "<point>",
    "</point>", "<tool_call>", "</tool_call>", '"action_type"', '"action"', "'action'", '"coordinate"',
    '"arguments"', '"name"', '"bbox_2d"', "'position'", "None", "null", "CLICK", "ASK", "ask(", "call_user()",
    "0.5", "500", "-3", "1e309", "9" * 400, "nan", "\n", " ", "\\", "图片", "=", "->", "at the box",
]


def check_total(convention: str, text: str) -> None:
    action = parse_action(convention, text, 1280, 800)
    assert isinstance(action, ParsedAction) and action.raw == text
    assert "parser_error" not in action.extra, action.extra  # the guard in base.run must stay unused
    if action.wrong_format:
        assert action.action_type is None
    else:
        assert action.action_type in ACTION_TYPES
    for value in (action.point or ()) + (action.box or ()):
        assert math.isfinite(value)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(CONVENTIONS)), st.text())
def test_fuzz_arbitrary_text_never_raises(convention, text):
    check_total(convention, text)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(CONVENTIONS)),
       st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)), max_size=30).map("".join))
def test_fuzz_answer_shaped_text_never_raises(convention, text):
    check_total(convention, text)


def test_pathological_inputs():
    for text in ("{" * 5000, "[" * 5000 + "]" * 5000, "{'a': " * 300 + "1" + "}" * 300, "(" * 3000,
                 "x" * 200_000, "\x00\udcff", '{"action_type": "click", "point": [1e999, 2]}'):
        for convention in CONVENTIONS:
            check_total(convention, text)


def test_a_coordinate_that_is_not_finite_is_no_point():
    """A number too large for a float reads as infinity: no such point exists, and stored JSON could not hold it."""
    from desktop_app.agents.conventions.base import Found, finish
    from desktop_app.agents.geometry import Geometry

    for coords in ((float("inf"), 3.0), (5.0, float("nan")), (1.0, 2.0, float("-inf"), 4.0)):
        parsed = finish("raw", Found(name="click", coords=coords), "abs_px_original", Geometry(1280, 800))
        assert parsed.wrong_format and parsed.point is None
        assert parsed.extra["geometry_error"] == "a coordinate is not a finite number"


# --------------------------------------------------------------------------- generated answers (issue 20)
# Answers shaped like JSON a model writes, but hostile: wrong types, numbers past 1e308 or 4,300 digits, NaN,
# 1 MB strings, JSON inside JSON strings, hundreds of nested lists, lone surrogates, each in the envelopes the
# families use. Driven by a random.Random (hypothesis' here, a seeded one in benchmarks/reliability.py).

ANSWER_KEYS = ["action_type", "action", "point", "coordinate", "coordinate2", "bbox_2d", "point_2d", "box",
               "position", "x", "y", "name", "arguments", "start_box", "end_box", "element", "text", "content",
               "question", "value", "direction", "keys", "key", "status", "label", "time", "button", "app_name",
               "pixels", "result_id", "title"]
ACTION_NAMES = ["click", "left_click", "CLICK", "type", "type_text", "input_text", "ask", "ASK", "call_user",
                "scroll", "SCROLL", "key", "hotkey", "terminate", "swipe", "long_press", "system_button", "open",
                "wait", "INPUT", "TAP", "finished", "computer_use", "mobile_use", "drag", "", "Click result 3"]
NUMBER_TEXTS = ["0", "1", "-3", "0.5", "500", "999", "1000", "1e400", "-1e400", "NaN", "Infinity", "-Infinity",
                "1e308", "9" * 400, "9" * 5000, "18446744073709551616", "-0", "1E2", "00012"]
ENVELOPES = ["{}", "<tool_call>\n{}\n</tool_call>", "```json\n{}\n```", "Thought: ok\nAction: click(start_box='{}')",
             "Action: {}", "In conclusion, the next action is {}.", "actions:\nCLICK <point>{}</point>",
             "Grounded Operation: CLICK(box={}, element_type='x')", "[{}]", "{} {}", "ASK: {}"]


class _Answer:
    """One generated answer: JSON-like text built by hand, so it can hold what json.dumps cannot."""

    def __init__(self, rng: random.Random, big: bool = False):
        self.rng, self.big = rng, big

    def text(self, size: int = 12) -> str:
        alphabet = "ab ,.:;()[]{}<>'\"\\-_=0123456789xyXY\n\t" + "，图片\u202e\u200b\x00\ud800é"
        return "".join(self.rng.choice(alphabet) for _ in range(self.rng.randrange(size + 1)))

    def string(self) -> str:
        choice = self.rng.randrange(8)
        if choice == 0:
            return json.dumps(self.rng.choice(ACTION_NAMES))
        if choice == 1:
            return json.dumps(self.text())
        if choice == 2:  # JSON inside a JSON string, as Qwen's "arguments" sometimes are
            return json.dumps(self.value(2))
        if choice == 3:
            return json.dumps(self.rng.choice(["(500,500)", "<point>1 2</point>", "[[1,2,3,4]]", "500, 300",
                                               "(1e400,2)", "(" + "9" * 400 + ",1)", "<|box_start|>(1,2)"]))
        if choice == 4:
            return '"\\ud800' + self.text(4) + '"'  # a lone surrogate as JSON escapes it
        if choice == 5 and self.big:
            return json.dumps("y" * 1_000_000)  # a 1 MB string
        return json.dumps(self.rng.choice(ANSWER_KEYS))

    def value(self, depth: int = 3) -> str:
        roll = self.rng.random()
        if depth <= 0 or roll < 0.35:
            return self.rng.choice([self.rng.choice(NUMBER_TEXTS), self.string(), "null", "true", "false"])
        if roll < 0.6:
            return "[" + ", ".join(self.value(depth - 1) for _ in range(self.rng.randrange(6))) + "]"
        if roll < 0.65:
            n = self.rng.choice([50, 300, 3000])
            return "[" * n + self.rng.choice(NUMBER_TEXTS) + "]" * n
        keys = [self.rng.choice(ANSWER_KEYS) if self.rng.random() < 0.8 else self.text(6)
                for _ in range(self.rng.randrange(7))]
        return "{" + ", ".join(f"{json.dumps(k)}: {self.value(depth - 1)}" for k in keys) + "}"

    def answer(self) -> str:
        kind = self.rng.randrange(5)
        if kind == 0:
            return self.text(200)
        body = self.value()
        if kind == 1:
            body = body.replace('"', "'").replace("null", "None").replace("true", "True")  # Python-literal style
        envelope = self.rng.choice(ENVELOPES)
        return envelope.replace("{}", body)


def hostile_answer(rng: random.Random, big: bool = False) -> str:
    """A generated model answer; `big` lets it hold 1 MB strings."""
    return _Answer(rng, big).answer()


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(CONVENTIONS)), st.randoms(use_true_random=False))
def test_fuzz_generated_json_answers_parse_or_are_wrong_format(convention, rng):
    check_total(convention, hostile_answer(rng))


def test_megabyte_answers_parse_or_are_wrong_format_in_time():
    """A 1 MB answer (a model looping, a server echoing a page) is read in linear time: seconds, not minutes."""
    rng = random.Random(20)
    answers = ['{"action_type": "click", "point": [1, 2], "why": "' + "y" * 1_000_000 + '"}',
               '<tool_call>\n{"name": "computer_use", "arguments": ' + json.dumps(json.dumps(
                   {"action": "left_click", "coordinate": [644, 406], "note": "z" * 1_000_000})) + "}\n</tool_call>",
               "Thought: " + "(1,2) [3] {" * 100_000 + "\nAction: click(start_box='(5,5)')",
               hostile_answer(rng, big=True)]
    for text in answers:
        for convention in CONVENTIONS:
            started = time.perf_counter()
            check_total(convention, text)
            assert time.perf_counter() - started < 10, convention


@pytest.mark.parametrize("text", [
    '[{"bbox_2d": [[[[999]]]], "label": "x"}]',  # nested lists around one number flatten to one
    '<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [1, 2, 3]}}\n</tool_call>',
    '<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [1, 2, 3, 4, 5]}}'
    "\n</tool_call>",
    '{"name": "computer_use", "arguments": "' + "[" * 3000 + "]" * 3000 + '"}',  # arguments as a JSON string
])
def test_a_coordinate_list_that_is_neither_point_nor_box_is_wrong_format(text):
    """Found by the generated answers: one number (or three) raised IndexError inside the parser, and arguments
    nested thousands deep inside their JSON string a RecursionError."""
    for convention in ("qwen25vl", "qwen3vl"):
        action = parsed(convention, text)
        check_total(convention, text)
        assert action.wrong_format and action.point is None
