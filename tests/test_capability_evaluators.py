"""Sphinx trajectory evaluators: reading/writing, and their semantics on small hand-built trajectories.

The trajectory used by most tests (four steps, eight entries; entry 2k is screen k with its activity,
entry 2k+1 the action taken on screen k):

  step 0  HOME (Main)   click the Add button (element action, centre (25,10))   entries 0, 1
  step 1  FORM (Form)   type "10" into the amount field                          entries 2, 3
  step 2  FILLED (Form) click the point (25,40), inside the Save button          entries 4, 5
  step 3  DONE (Main)   stop                                                      entries 6, 7
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_app.a11y.tree import UiTree
from desktop_app.capability.evaluators import (
    EvaluatorError,
    FindAction,
    FindElement,
    FindElementByAction,
    LastAction,
    Rule,
    StopPage,
    TraceStep,
    build_trace,
    describe,
    evaluate,
    parse_evaluators,
    reference_check,
    score_task,
    to_json,
)

DATA = Path(__file__).parent / "data"


def screen(*nodes: dict) -> UiTree:
    """A dump: a status bar (system UI, never searched) and the app's frame holding the given leaves."""
    def node(attrs):
        attrs = {"text": "", "resource-id": "", "class": "android.widget.TextView", "package": "app",
                 "content-desc": "", "clickable": "false", **attrs}
        return "<node " + " ".join(f'{k}="{v}"' for k, v in attrs.items()) + " />"
    return UiTree.from_xml(
        '<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">'
        '<node text="Save" resource-id="app:id/save" class="android.widget.Button" '
        'package="com.android.systemui" bounds="[0,0][100,100]" />'
        '<node class="android.widget.FrameLayout" package="app" text="" resource-id="" '
        'bounds="[0,0][100,100]">'
        + "".join(node(n) for n in nodes) + "</node></hierarchy>")


ADD = {"text": "Add", "resource-id": "app:id/add", "class": "android.widget.Button", "clickable": "true",
       "bounds": "[0,0][50,20]"}
SAVE = {"text": "Save", "resource-id": "app:id/save", "class": "android.widget.Button", "clickable": "true",
        "bounds": "[0,30][50,50]"}


def amount(text):
    return {"text": text, "resource-id": "app:id/amount", "class": "android.widget.EditText",
            "bounds": "[0,0][100,20]"}


def total(text):
    return {"text": text, "resource-id": "app:id/total", "bounds": "[0,50][100,60]"}


HOME, FORM, FILLED, DONE = screen(ADD, total("0.00")), screen(amount(""), SAVE), screen(amount("10"), SAVE), \
    screen(total("10.00"))
TRACE = [
    TraceStep(HOME, ("app", "Main"), {"type": "click", "element": ADD}),
    TraceStep(FORM, ("app", "Form"), {"type": "input", "element": amount(""), "message": "10"}),
    TraceStep(FILLED, ("app", "Form"), {"type": "click", "element": None, "coords": [25, 40]}),
    TraceStep(DONE, ("app", "Main"), {"type": "stop", "element": None}),
]


def find_action(match, check=None, how="equal"):
    return FindAction(how, match, "equal", check or {})


CLICK_ADD = find_action({"action_type": "click", "resource-id": "app:id/add"})
CLICK_SAVE = find_action({"action_type": "click", "resource-id": "app:id/save"})
TYPE = find_action({"action_type": "input"})


# -- reading and writing ---------------------------------------------------------------------------------
@pytest.mark.parametrize("path", sorted((DATA / "sphinx_evaluators").glob("*.json")), ids=lambda p: p.stem)
def test_real_evaluator_files_round_trip(path):
    raw = json.loads(path.read_text())
    evaluators = parse_evaluators(raw, str(path))
    assert to_json(evaluators) == raw
    assert json.dumps(to_json(evaluators)) == json.dumps(raw)  # key order too


def test_copied_files_cover_rule_and_findelementbyaction():
    kinds = set()
    for path in (DATA / "sphinx_evaluators").glob("*.json"):
        for e in parse_evaluators(json.loads(path.read_text())):
            kinds.add(type(e))
    assert {Rule, FindElementByAction, FindAction, StopPage, LastAction} <= kinds


def error_of(data) -> EvaluatorError:
    with pytest.raises(EvaluatorError) as caught:
        parse_evaluators(data, "evaluator.json")
    return caught.value


def test_unknown_assertion_type_names_its_path():
    stop = {"type": "stoppage", "match_type": "equal", "match_rules": {}, "check_type": "equal",
            "check_rules": {}}
    data = [stop, stop, {"type": "rule", "order": "present", "evaluators": [{"type": "findtext"}]}]
    error = error_of(data)
    assert error.path == "[2].evaluators[0].type"
    assert error.message.startswith("unknown assertion type 'findtext'; known: rule, stoppage, findelement")
    assert str(error).startswith("evaluator.json: [2].evaluators[0].type: unknown assertion type")


@pytest.mark.parametrize("data, path, words", [
    ({"type": "rule"}, "", "expected a list of evaluators"),
    (["stoppage"], "[0]", "an evaluator is an object"),
    ([{"match_type": "equal"}], "[0].type", "missing key 'type'"),
    ([{"type": "lastaction", "check_type": "equal"}], "[0].check_rules", "missing key 'check_rules'"),
    ([{"type": "lastaction", "check_type": "same", "check_rules": {}}], "[0].check_type",
     "'equal' or 'include'"),
    ([{"type": "lastaction", "check_type": "equal", "check_rules": ["text"]}], "[0].check_rules",
     "rules must be an object of strings"),
    ([{"type": "lastaction", "check_type": "equal", "check_rules": {"index": 3}}], "[0].check_rules.index",
     "rule values must be strings, not a number"),
    ([{"type": "lastaction", "check_type": "equal", "check_rules": {}, "note": "x"}], "[0].note",
     "unknown key 'note'"),
    ([{"type": "rule", "order": "parallel", "evaluators": []}], "[0].order", "order must be one of"),
    ([{"type": "rule", "order": "present", "evaluators": {}}], "[0].evaluators", "expected a list"),
    ([{"type": "stoppage", "match_type": "equal", "match_rules": {"activity": "Main"}, "check_type": "equal",
       "check_rules": {}}], "[0].match_rules.activity", "cannot match on activity"),
])
def test_bad_evaluators_name_the_place(data, path, words):
    error = error_of(data)
    assert error.path == path and words in error.message, (error.path, error.message)


def test_parsed_evaluators_are_frozen_dataclasses():
    (rule,) = parse_evaluators([{"type": "rule", "order": "sequential", "evaluators": [
        {"type": "lastaction", "check_type": "include", "check_rules": {"text": "GO"}}]}])
    assert rule == Rule("sequential", (LastAction("include", {"text": "GO"}),))
    with pytest.raises(AttributeError):
        rule.order = "present"


# -- single assertions ----------------------------------------------------------------------------------
def test_stoppage_looks_at_the_final_screen_with_its_activity():
    # Entry before last = entry 6, screen DONE in activity Main.
    done = StopPage("equal", {"resource-id": "app:id/total"}, "equal", {"text": "10.00"})
    assert evaluate(done, TRACE) == (True, 6)
    assert evaluate(StopPage("equal", {"resource-id": "app:id/total"}, "equal",
                             {"text": "10.00", "activity": "Main"}), TRACE) == (True, 6)
    # Wrong activity: fails, and still reports index 6.
    assert evaluate(StopPage("equal", {"resource-id": "app:id/total"}, "equal",
                             {"text": "10.00", "activity": "Form"}), TRACE) == (False, 6)
    # The Add button is on screen 0 only: not on the final screen.
    assert evaluate(StopPage("equal", {"resource-id": "app:id/add"}, "equal", {}), TRACE) == (False, 6)
    # An activity check alone still needs the matched element.
    assert evaluate(StopPage("equal", {"text": "nowhere"}, "equal", {"activity": "Main"}), TRACE)[0] is False
    # Fewer than two entries: nothing to look at.
    assert evaluate(done, []) == (False, 0)


def test_stoppage_include_and_system_ui_left_out():
    assert evaluate(StopPage("include", {"resource-id": "total"}, "include", {"text": "10"}), TRACE)[0]
    # The status bar (system UI) holds a node app:id/save on every screen; it is never searched.
    assert evaluate(StopPage("equal", {"resource-id": "app:id/save"}, "equal", {}), TRACE) == (False, 6)


def test_lastaction_is_the_action_before_stop():
    # Third from last = entry 5: the click at (25,40); the Save button contains it.
    on_save = LastAction("equal", {"action_type": "click", "resource-id": "app:id/save"})
    assert evaluate(on_save, TRACE) == (True, 5)
    assert evaluate(LastAction("equal", {"action_type": "click"}), TRACE) == (True, 5)
    assert evaluate(LastAction("equal", {"action_type": "input"}), TRACE) == (False, 5)
    assert evaluate(LastAction("equal", {"resource-id": "app:id/add"}), TRACE) == (False, 5)
    assert evaluate(LastAction("equal", {}), TRACE[-1:]) == (False, 0)  # two entries: too short


def test_findelement_first_matching_screen_decides():
    # Screen 0 already has app:id/total (text 0.00): it is the one checked; DONE's 10.00 is never reached.
    total_is_ten = FindElement("equal", {"resource-id": "app:id/total"}, "equal", {"text": "10.00"})
    assert evaluate(total_is_ten, TRACE) == (False, 0)
    ten_is_total = FindElement("equal", {"text": "10.00"}, "equal", {"resource-id": "app:id/total"})
    assert evaluate(ten_is_total, TRACE) == (True, 6)
    # An activity in match_rules restricts the screens searched; in check_rules it is checked.
    assert evaluate(FindElement("equal", {"resource-id": "app:id/total", "activity": "Main"}, "equal",
                                {}), TRACE) == (True, 0)
    assert evaluate(FindElement("equal", {"resource-id": "app:id/save", "activity": "Form"}, "equal",
                                {"activity": "Form"}), TRACE) == (True, 2)
    assert evaluate(FindElement("equal", {"resource-id": "app:id/save"}, "equal",
                                {"activity": "Main"}), TRACE) == (False, 2)
    assert evaluate(FindElement("equal", {"text": "absent"}, "equal", {}), TRACE) == (False, 0)


def test_findaction_action_keys_element_keys_and_points():
    assert evaluate(CLICK_ADD, TRACE) == (True, 1)  # element action: its centre (25,10) lies on Add
    assert evaluate(CLICK_SAVE, TRACE) == (True, 5)  # coordinate action (25,40) lies on Save
    assert evaluate(find_action({"action_type": "input"}, {"message": "10"}), TRACE) == (True, 3)
    assert evaluate(find_action({"action_type": "input"}, {"message": "11"}), TRACE) == (False, 3)
    assert evaluate(find_action({"message": "10"}), TRACE) == (True, 3)
    # Include: "click" is in "longclick"; "1" is in the message "10".
    assert evaluate(find_action({"message": "1"}, how="include"), TRACE) == (True, 3)
    # An element key with no point (stop) cannot match; a key no node has never matches.
    stop_on_frame = find_action({"action_type": "stop", "class": "android.widget.FrameLayout"})
    assert evaluate(stop_on_frame, TRACE) == (False, 0)
    assert evaluate(find_action({"action_type": "click", "direction": "up"}), TRACE) == (False, 0)
    # Empty rules: the first action of all.
    assert evaluate(find_action({}), TRACE) == (True, 1)


def test_findaction_reads_text_as_input_and_home_as_restart():
    steps = [TraceStep(FORM, ("app", "Form"), {"type": "text", "element": amount(""), "message": "hi"}),
             TraceStep(FORM, ("app", "Form"), {"type": "home", "element": None}),
             TraceStep(HOME, ("app", "Main"), {"type": "stop", "element": None})]
    assert evaluate(find_action({"action_type": "input", "message": "hi"}), steps) == (True, 1)
    assert evaluate(find_action({"action_type": "text"}), steps) == (False, 0)
    assert evaluate(find_action({"action_type": "restart"}), steps) == (True, 3)


def test_findelementbyaction_checks_the_screen_of_the_first_matching_action():
    # The Save click is entry 5, on FILLED, where the amount field says "10".
    feba = FindElementByAction("equal", {"action_type": "click", "resource-id": "app:id/save"}, "equal",
                               {"resource-id": "app:id/amount"}, "equal", {"text": "10"})
    assert evaluate(feba, TRACE) == (True, 5)
    # Any first click is Add (entry 1, HOME): HOME has no amount field.
    first_click = FindElementByAction("equal", {"action_type": "click"}, "equal",
                                      {"resource-id": "app:id/amount"}, "equal", {})
    assert evaluate(first_click, TRACE) == (False, 1)


# -- rules -----------------------------------------------------------------------------------------------
def test_sequential_rule_slices_with_index_offsets():
    # Add at entry 1; input searched from entry 1 on, found at 3; the stoppage on entries 3..7 reports its
    # entry before last, 3 + (5 - 2) = 6.
    rule = Rule("sequential", (CLICK_ADD, TYPE, StopPage("equal", {"text": "10.00"}, "equal", {})))
    assert evaluate(rule, TRACE) == (True, 6)
    # Reversed order: input at 3, then no click on Add from entry 3 on; fails at index 3.
    assert evaluate(Rule("sequential", (TYPE, CLICK_ADD)), TRACE) == (False, 3)
    # Surprise kept from the authors: the next search starts AT the matched entry, so one click on Add
    # satisfies two identical findactions (their task 919 "add a bookmark and remove it" passes with one tap).
    assert evaluate(Rule("sequential", (CLICK_ADD, CLICK_ADD)), TRACE) == (True, 1)
    assert evaluate(Rule("sequential", ()), TRACE) == (True, 0)


def test_consecutive_rule_windows_of_three_entries_pass_and_fail_by_one_step():
    # Add at entry 1, then the window entries 1..3 holds the input (entry 3): next step, passes.
    assert evaluate(Rule("consecutive", (CLICK_ADD, TYPE)), TRACE) == (True, 3)
    # Save is clicked two steps after Add (entry 5): no window starting at Add reaches it.
    assert evaluate(Rule("consecutive", (CLICK_ADD, CLICK_SAVE)), TRACE) == (False, 0)
    # One step after the input: passes.
    assert evaluate(Rule("consecutive", (TYPE, CLICK_SAVE)), TRACE) == (True, 5)
    # The same pair in sequential order passes however far apart.
    assert evaluate(Rule("sequential", (CLICK_ADD, CLICK_SAVE)), TRACE) == (True, 5)


def test_consecutive_rule_with_a_stoppage_cannot_run():
    # In the first window (screen 0, its action, screen 1) the entry before last is an action: the authors'
    # code raises there, so the rule never passes, although the stoppage alone holds.
    stop = StopPage("equal", {"text": "10.00"}, "equal", {})
    assert evaluate(stop, TRACE)[0]
    assert evaluate(Rule("consecutive", (stop,)), TRACE) == (False, 0)
    assert score_task([Rule("consecutive", (stop,)), stop], TRACE).passed == [False, True]


def test_present_rule_takes_the_whole_trajectory_and_the_furthest_index():
    assert evaluate(Rule("present", (TYPE, CLICK_ADD)), TRACE) == (True, 3)
    assert evaluate(Rule("present", (CLICK_SAVE, find_action({"message": "99"}))), TRACE) == (False, 5)
    assert evaluate(Rule("present", ()), TRACE) == (True, -1)


# -- scoring ---------------------------------------------------------------------------------------------
def test_acp_with_a_nested_sequential_rule_whose_inner_assertion_fails():
    # The stoppage holds; the rule fails on its second inner assertion (no input "99"), so the whole rule
    # counts as one failed evaluator; the findelement holds: 2 of 3 -> ACP 2/3, not a success.
    evaluators = [StopPage("equal", {"resource-id": "app:id/total"}, "equal", {"text": "10.00"}),
                  Rule("sequential", (CLICK_ADD, find_action({"message": "99"}), CLICK_SAVE)),
                  FindElement("equal", {"text": "Save"}, "equal", {})]
    score = score_task(evaluators, TRACE)
    assert score.passed == [True, False, True]
    assert score.success is False
    assert score.completion == pytest.approx(2 / 3)
    assert reference_check(evaluators, TRACE) == [True, False, True]


def test_no_evaluators_is_a_success_without_completion():
    # The authors' MainEvaluator passes an empty list; their ACP refuses it ("evaluator is empty").
    score = score_task([], TRACE)
    assert score.success is True and score.completion is None


def test_build_trace_adds_the_stop_of_an_unfinished_run():
    steps = build_trace([HOME, FORM], [["app", "Main"], ["app", "Form"]], [{"type": "click", "element": ADD}])
    assert [s.action["type"] for s in steps] == ["click", "stop"] and steps[1].activity == ("app", "Form")
    assert evaluate(LastAction("equal", {"resource-id": "app:id/add"}), steps) == (True, 1)
    with pytest.raises(ValueError, match="each screen needs"):
        build_trace([HOME], [], [])


def test_describe_in_words():
    money = StopPage("equal", {"resource-id": "com.kb404.money:id/op_sum"}, "equal", {"text": "10.00"})
    assert describe(money) == "final screen has resource-id=com.kb404.money:id/op_sum with text=10.00"
    assert describe(LastAction("include", {"text": "GO"})) == "last action before stop has text containing GO"
    assert describe(Rule("sequential", (TYPE, CLICK_ADD))) == (
        "sequential [an action with action_type=input; "
        "an action with action_type=click, resource-id=app:id/add]")
    assert describe(FindElementByAction("equal", {"action_type": "click"}, "equal", {"resource-id": "x"},
                                        "equal", {"text": "a\nb"})) == \
        "at an action with action_type=click, the screen has resource-id=x with text=a b"
    assert describe(FindElement("equal", {}, "equal", {})) == "some screen has any element"


# -- a real task -----------------------------------------------------------------------------------------
def reference_trace(folder: Path) -> list[TraceStep]:
    """Step i = (i.xml, activity i, reference action i) of an authors' task folder."""
    actions = json.loads((folder / "meta.json").read_text())
    activities = json.loads((folder / "activities.json").read_text())
    trees = [UiTree.from_xml((folder / f"{i}.xml").read_bytes()) for i in range(len(actions))]
    return build_trace(trees, activities, actions)


def test_real_task_reference_trajectory_passes_its_evaluators():
    folder = DATA / "sphinx_task_101_money"
    trace = reference_trace(folder)
    evaluators = parse_evaluators(json.loads((folder / "evaluator.json").read_text()))
    assert [s.action["type"] for s in trace] == ["click", "click", "input", "input", "click", "stop"]
    assert reference_check(evaluators, trace) == [True, True]
    assert score_task(evaluators, trace).completion == 1.0
    # The copy in sphinx_evaluators is the same file, run on the same screens.
    copy = parse_evaluators(json.loads((DATA / "sphinx_evaluators" / "101_money.json").read_text()))
    assert all(reference_check(copy, trace))
    # Cut before typing the shop name: the second stoppage (shop "dinner") fails on that final screen.
    first = trace[:3]
    cut = build_trace([s.tree for s in first], [s.activity for s in first], [s.action for s in first[:2]])
    assert reference_check(evaluators, cut) == [False, False]
