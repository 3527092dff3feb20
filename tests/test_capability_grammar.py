"""The Sphinx action grammar: strict parsing, resolving tags to elements, and the repetition test."""

from __future__ import annotations

import pytest

from desktop_app.a11y.tree import UiTree
from desktop_app.capability.grammar import (
    GrammarError,
    ParsedAction,
    action_line,
    parse_action,
    same_action,
    to_trace_action,
)

# Interactable nodes in document order get the tags: [0] Search (clickable), [1] the EditText, [2] the list
# (scrollable). The label and the system-UI node get none.
TREE = UiTree.from_xml(
    '<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">'
    '<node class="android.widget.FrameLayout" package="app" bounds="[0,0][100,200]">'
    '<node text="Search" resource-id="app:id/search" class="android.widget.Button" package="app" '
    'clickable="true" bounds="[0,0][50,20]" />'
    '<node text="Hello" class="android.widget.TextView" package="app" bounds="[50,0][100,20]" />'
    '<node text="" resource-id="app:id/query" class="android.widget.EditText" package="app" clickable="true" '
    'bounds="[0,20][100,40]" />'
    '<node resource-id="app:id/list" class="android.widget.ListView" package="app" scrollable="true" '
    'bounds="[0,40][100,200]" />'
    '</node>'
    '<node text="" class="android.widget.Button" package="com.android.systemui" clickable="true" '
    'bounds="[0,180][100,200]" />'
    '</hierarchy>')


@pytest.mark.parametrize("answer, expected", [
    ("click [3]", ParsedAction("click", 3, None, None, None, None, "click [3]")),
    ("longclick [0]", ParsedAction("longclick", 0, None, None, None, None, "longclick [0]")),
    ("text [1] [hello world]",
     ParsedAction("text", 1, None, None, "hello world", None, "text [1] [hello world]")),
    ("input [123] [some text]",
     ParsedAction("text", 123, None, None, "some text", None, "input [123] [some text]")),
    ("text [1] [a [b] c]", ParsedAction("text", 1, None, None, "a [b] c", None, "text [1] [a [b] c]")),
    ("text [1] []", ParsedAction("text", 1, None, None, "", None, "text [1] []")),
    ("swipe [2] [up]", ParsedAction("swipe", 2, None, None, None, "up", "swipe [2] [up]")),
    ("press [back]", ParsedAction("back", None, None, None, None, None, "press [back]")),
    ("press [wait]", ParsedAction("wait", None, None, None, None, None, "press [wait]")),
    ("  click  [ 3 ]  ", ParsedAction("click", 3, None, None, None, None, "click  [ 3 ]")),
])
def test_element_form(answer, expected):
    assert parse_action(answer, "element") == expected


@pytest.mark.parametrize("answer, expected", [
    ("click [540,960]", ParsedAction("click", None, (540, 960), None, None, None, "click [540,960]")),
    ("longclick [1, 2]", ParsedAction("longclick", None, (1, 2), None, None, None, "longclick [1, 2]")),
    ("text [10,20] [hi]", ParsedAction("text", None, (10, 20), None, "hi", None, "text [10,20] [hi]")),
    ("swipe [540,1500] [540,500]", ParsedAction("swipe", None, (540, 1500), (540, 500), None, None,
                                                "swipe [540,1500] [540,500]")),
    ("press [stop]", ParsedAction("stop", None, None, None, None, None, "press [stop]")),
])
def test_coordinate_form(answer, expected):
    assert parse_action(answer, "coordinate") == expected


def test_reasoning_may_precede_and_the_last_verb_line_counts():
    answer = ("The search field is [1]. I should click [0] first? No.\n"
              "click [0]\n"
              "Then, on reflection:\n"
              "text [1] [cheap flights]\n"
              "That should do it.")
    # Line 1 starts with "The", not a verb; the last line starting with a verb is the text action.
    assert action_line(answer) == "text [1] [cheap flights]"
    assert parse_action(answer).text == "cheap flights"


@pytest.mark.parametrize("answer, words", [
    ("", "no line starts with an action"),
    ("I will tap it.\nclick the Search button\n", "expected click [i]"),  # a verb line, not an action
    ("```click [3]```", "inside quotes, backticks"),
    ("Action: `click [3]`", "inside quotes, backticks"),
    ("click [3] now", "expected click [i]"),  # words after the action
    ("click [3].", "expected click [i]"),
    ("clicking [3]", "no line starts with an action"),
    ("Click [3]", "no line starts with an action"),  # verbs are lower case
    ("swipe [2] [sideways]", "up, down, left or right"),
    ("swipe [2] [direction=up]", "expected swipe [i] [direction]"),
    ("press [none]", "expected press [key]"),
    ("press [Back]", "expected press [key]"),
    ("click [-1]", "expected click [i]"),
    ("text [1] hello", "expected text [i] [text]"),
])
def test_strict_errors_say_what_was_expected(answer, words):
    with pytest.raises(GrammarError) as caught:
        parse_action(answer, "element")
    assert words in caught.value.message, caught.value.message


def test_wrong_form_is_named():
    with pytest.raises(GrammarError, match="the coordinate form; this observation takes the element form"):
        parse_action("click [10,20]", "element")
    with pytest.raises(GrammarError, match="this is the element form"):
        parse_action("swipe [2] [up]", "coordinate")
    with pytest.raises(ValueError, match="form must be"):
        parse_action("click [1]", "pixels")


def test_to_trace_action_resolves_tags():
    action = to_trace_action(parse_action("text [1] [hello]"), TREE)
    assert action["type"] == "input" and action["message"] == "hello"
    assert action["element"]["resource-id"] == "app:id/query"
    assert action["element"]["bounds"] == "[0,20][100,40]"
    assert action["coords"] is None
    swipe = to_trace_action(parse_action("swipe [2] [down]"), TREE)
    assert swipe["element"]["resource-id"] == "app:id/list" and swipe["direction"] == "down"
    assert to_trace_action(parse_action("press [back]"), TREE) == {
        "type": "back", "element": None, "coords": None, "message": "", "direction": ""}
    drag = to_trace_action(parse_action("swipe [5,6] [7,8]", "coordinate"), TREE)
    assert drag["coords"] == [5, 6] and drag["coords_to"] == [7, 8] and drag["element"] is None
    # Three interactable nodes: [3] does not exist (the system-UI button is not tagged).
    with pytest.raises(GrammarError, match=r"no element \[3\] on this screen \(tags 0 to 2\)"):
        to_trace_action(parse_action("click [3]"), TREE)


def element(bounds, text="x"):
    return {"resource-id": "app:id/a", "class": "c", "text": text, "content-desc": "", "bounds": bounds}


def test_same_action_repetition_rule():
    a = {"type": "click", "element": element("[0,0][10,10]")}
    assert same_action(a, {"type": "click", "element": element("[0,0][10,10]", text="other")})  # bounds only
    assert not same_action(a, {"type": "click", "element": element("[0,0][10,10]", text="other")},
                           keys=("text", "bounds"))
    assert not same_action(a, {"type": "longclick", "element": element("[0,0][10,10]")})
    assert not same_action(a, {"type": "click", "element": element("[0,0][10,11]")})
    assert not same_action(a, {"type": "click", "element": None, "coords": [5, 5]})  # element vs coordinate
    assert same_action({"type": "click", "coords": [5, 5]}, {"type": "click", "coords": [5, 5]})
    assert not same_action({"type": "click", "coords": [5, 5]}, {"type": "click", "coords": [5, 6]})
    typed = {"type": "text", "element": element("[0,0][10,10]"), "message": "hi"}
    assert same_action(typed, {"type": "input", "element": element("[0,0][10,10]"), "message": "hi"})
    assert not same_action(typed, {"type": "input", "element": element("[0,0][10,10]"), "message": "ho"})
    # System actions are equal by type; home is the authors' restart.
    assert same_action({"type": "back", "element": None}, {"type": "back"})
    assert same_action({"type": "home"}, {"type": "restart"})
    assert not same_action({"type": "back"}, {"type": "enter"})
    # Swipe directions are not compared (neither do the authors).
    up = {"type": "swipe", "element": element("[0,0][10,10]"), "direction": "up"}
    assert same_action(up, {**up, "direction": "down"})
