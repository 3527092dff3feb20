"""Trajectory evaluators of the Sphinx benchmark (Ran et al. 2025): read, written back, run on a trajectory.

A task's evaluator.json is a list of evaluators; the task succeeds when every one holds on the agent's
trajectory (SR), and its completion (ACP) is the share that hold. The kinds, by their JSON `type`:

  stoppage             the final screen has an element matching match_rules, and it satisfies check_rules
  findelement          the first screen with an element matching match_rules; that element satisfies
                       check_rules
  lastaction           the last action before stop satisfies check_rules
  findaction           the first action satisfying match_rules also satisfies check_rules
  findelementbyaction  at the first action satisfying action_match_rules, that screen has an element
                       matching element_match_rules which satisfies check_rules
  rule                 nested evaluators in an order: sequential, consecutive or present

Rules are {attribute: value}, compared by `equal` or `include` (substring) on the raw dump attributes. The
key "activity" names the screen's activity (not an attribute) in findelement rules and stoppage check
rules. Action rules may use "action_type" and "message" (the typed text); any other key is an attribute
of the element under the action's point.

The semantics are those of the authors' evaluator (github.com/PKU-ASE-RISE/Sphinx, infra/evaluator.py),
surprises included; each surprise is commented where it happens. The code is ours, not theirs.

An evaluator sees the trajectory flattened to two entries per step: the screen with its activity, then the
screen with the action taken on it. The index returned by `evaluate` counts these entries (step = index // 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import ClassVar

from desktop_app.a11y.tree import Node, UiTree, matches, parse_bounds

MATCH_TYPES = ("equal", "include")
ORDERS = ("sequential", "consecutive", "present")
ACTION_KEYS = ("action_type", "message")  # the only rule keys read from the action itself
ACTIVITY = "activity"
# Our action types -> the name the authors' evaluator compares "action_type" with. Their parser turns
# `text` into TEXT, which the evaluator renames "input"; `press [home]` into RESTART (they have no home
# action); and their `press [none]` (our `press [wait]`) into NONE.
EVALUATOR_TYPES = {"text": "input", "home": "restart", "wait": "none"}
SYSTEM_TYPES = ("back", "enter", "restart", "stop", "none")  # in evaluator names: no element, no point
STOP = {"type": "stop", "element": None}


class EvaluatorError(ValueError):
    """An evaluator file that cannot be read; `path` names the place, e.g. [2].evaluators[0].type."""

    def __init__(self, message: str, path: str = "", where: str = ""):
        super().__init__(": ".join(part for part in (where, path, message) if part))
        self.message, self.path, self.where = message, path, where


@dataclass(frozen=True)
class TraceStep:
    """One step of a trajectory: the screen, its (package, activity), and the action taken on it in the
    authors' meta.json shape ({"type", "element", "coords", "message", "direction"})."""

    tree: UiTree
    activity: tuple[str, str] | None
    action: dict


# -- the evaluators ---------------------------------------------------------------------------------
# Field order is the order of the keys in the authors' files, so `to_json` writes them back alike.
@dataclass(frozen=True)
class StopPage:
    kind: ClassVar[str] = "stoppage"
    match_type: str
    match_rules: dict[str, str]
    check_type: str
    check_rules: dict[str, str]  # may hold "activity": the final screen's activity


@dataclass(frozen=True)
class FindElement:
    kind: ClassVar[str] = "findelement"
    match_type: str
    match_rules: dict[str, str]  # may hold "activity": only screens of that activity are searched
    check_type: str
    check_rules: dict[str, str]  # may hold "activity": the matched screen's activity


@dataclass(frozen=True)
class LastAction:
    kind: ClassVar[str] = "lastaction"
    check_type: str
    check_rules: dict[str, str]


@dataclass(frozen=True)
class FindAction:
    kind: ClassVar[str] = "findaction"
    match_type: str
    match_rules: dict[str, str]
    check_type: str
    check_rules: dict[str, str]


@dataclass(frozen=True)
class FindElementByAction:
    kind: ClassVar[str] = "findelementbyaction"
    action_match_type: str
    action_match_rules: dict[str, str]
    element_match_type: str
    element_match_rules: dict[str, str]
    check_type: str
    check_rules: dict[str, str]  # checked on the element; "activity" here is just an attribute name


@dataclass(frozen=True)
class Rule:
    kind: ClassVar[str] = "rule"
    order: str
    evaluators: tuple[Evaluator, ...]


Evaluator = StopPage | FindElement | LastAction | FindAction | FindElementByAction | Rule
KINDS = {cls.kind: cls for cls in (Rule, StopPage, FindElement, LastAction, FindAction, FindElementByAction)}


# -- reading and writing ----------------------------------------------------------------------------
def parse_evaluators(data, where: str = "") -> list[Evaluator]:
    """The evaluators of an evaluator.json value; EvaluatorError names the place of the first problem."""
    if not isinstance(data, list):
        raise EvaluatorError(f"expected a list of evaluators, not {_kind_of(data)}", "", where)
    return [_parse(raw, f"[{i}]", where) for i, raw in enumerate(data)]


def _parse(raw, path: str, where: str) -> Evaluator:
    if not isinstance(raw, dict):
        raise EvaluatorError(f"an evaluator is an object with a \"type\", not {_kind_of(raw)}", path, where)
    if "type" not in raw:
        raise EvaluatorError(f"missing key 'type'; known types: {', '.join(KINDS)}", _at(path, "type"), where)
    kind = raw["type"]
    cls = KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise EvaluatorError(f"unknown assertion type {kind!r}; known: {', '.join(KINDS)}", _at(path, "type"),
                             where)
    names = [f.name for f in fields(cls)]
    for key in raw:
        if key != "type" and key not in names:
            message = f"unknown key {key!r} for {kind}; it takes {', '.join(names)}"
            raise EvaluatorError(message, _at(path, key), where)
    values = {}
    for name in names:
        at = _at(path, name)
        if name not in raw:
            raise EvaluatorError(f"missing key {name!r}: {kind} takes {', '.join(names)}", at, where)
        value = raw[name]
        if name.endswith("_type"):
            if value not in MATCH_TYPES:
                raise EvaluatorError(f"{name} must be 'equal' or 'include', not {value!r}", at, where)
        elif name.endswith("_rules"):
            value = _rules(value, at, where)
        elif name == "order":
            if value not in ORDERS:
                raise EvaluatorError(f"order must be one of {', '.join(ORDERS)}, not {value!r}", at, where)
        elif name == "evaluators":
            if not isinstance(value, list):
                raise EvaluatorError(f"expected a list of evaluators, not {_kind_of(value)}", at, where)
            value = tuple(_parse(sub, f"{at}[{i}]", where) for i, sub in enumerate(value))
        values[name] = value
    if cls is StopPage and ACTIVITY in values["match_rules"]:
        # The authors' StopPage refuses it too: the final screen is fixed, only check_rules may name one.
        raise EvaluatorError("a stoppage cannot match on activity; put it in check_rules",
                             _at(_at(path, "match_rules"), ACTIVITY), where)
    return cls(**values)


def _rules(value, at: str, where: str) -> dict[str, str]:
    if not isinstance(value, dict):
        raise EvaluatorError(f"rules must be an object of strings, not {_kind_of(value)}", at, where)
    for key, text in value.items():
        if not isinstance(text, str):
            raise EvaluatorError(f"rule values must be strings, not {_kind_of(text)}", _at(at, key), where)
    return dict(value)


def _at(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _kind_of(value) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "true/false", type(None): "null"}
    return names.get(type(value), "a number" if isinstance(value, int | float) else type(value).__name__)


def to_json(evaluators: Sequence[Evaluator]) -> list[dict]:
    """The evaluator.json value of the evaluators (keys in the authors' order)."""
    return [_dump(e) for e in evaluators]


def _dump(evaluator: Evaluator) -> dict:
    out = {"type": evaluator.kind}
    for f in fields(evaluator):
        value = getattr(evaluator, f.name)
        if f.name == "evaluators":
            value = to_json(value)
        elif isinstance(value, dict):
            value = dict(value)
        out[f.name] = value
    return out


# -- the trajectory ---------------------------------------------------------------------------------
def build_trace(trees: Sequence[UiTree], activities: Sequence | None,
                actions: Sequence[dict]) -> list[TraceStep]:
    """Steps of a recorded run. A run that ended without stop (step limit, three repeated actions, a parse
    error) has one screen more than actions; like the authors' scorer, a stop on that last screen is added."""
    trees, actions = list(trees), list(actions)
    activities = [None] * len(trees) if activities is None else list(activities)
    if len(actions) == len(trees) - 1 and len(activities) == len(trees):
        actions.append(dict(STOP))
    if not len(trees) == len(activities) == len(actions):
        raise ValueError(f"{len(trees)} screens, {len(activities)} activities and {len(actions)} actions: "
                         "each screen needs its activity and its action")
    return [TraceStep(tree, tuple(activity) if activity is not None else None, action)
            for tree, activity, action in zip(trees, activities, actions, strict=True)]


@dataclass(frozen=True)
class _Entry:
    """Half a step: the screen entry carries the activity, the action entry the action."""

    tree: UiTree
    activity: tuple | None
    action: dict | None
    is_action: bool

    @property
    def activity_name(self) -> str | None:
        return self.activity[1] if self.activity is not None and len(self.activity) > 1 else None


def _flatten(trace: Sequence[TraceStep]) -> list[_Entry]:
    entries = []
    for step in trace:
        entries.append(_Entry(step.tree, step.activity, None, False))
        entries.append(_Entry(step.tree, None, step.action or {}, True))
    return entries


def evaluator_type(action: dict) -> str:
    """The action's type as the authors' evaluator names it (see EVALUATOR_TYPES)."""
    kind = str(action.get("type", ""))
    return EVALUATOR_TYPES.get(kind, kind)


def action_point(action: dict) -> tuple[int, int] | None:
    """Where an action acts for the evaluator: the centre of its element (integer halves, as the authors
    compute it), else its (first) coordinate; None for system actions. Bad bounds raise ValueError."""
    element = action.get("element")
    if element:
        x1, y1, x2, y2 = parse_bounds(element.get("bounds", ""))
        return (x1 + x2) // 2, (y1 + y2) // 2
    coords = action.get("coords")
    if coords:
        first = coords[0] if isinstance(coords[0], list | tuple) else coords  # [[x, y], ...] or [x, y]
        return int(first[0]), int(first[1])
    return None


# -- running ------------------------------------------------------------------------------------------
class _Unrunnable(Exception):
    """A place where the authors' evaluator raises instead of answering (a stoppage or lastaction inside a
    consecutive rule meets the wrong kind of entry). Their scoring then stops; we score the top-level
    evaluator as not holding, so nothing passes here that could not pass with theirs."""


def evaluate(evaluator: Evaluator, trace: Sequence[TraceStep]) -> tuple[bool, int]:
    """(holds, entry index it reached) of one evaluator on a trajectory; see the module doc for indices.
    An evaluator the authors' code cannot run on this trajectory gives (False, 0) (see _Unrunnable)."""
    return _evaluate(evaluator, _flatten(trace))


def _evaluate(evaluator: Evaluator, entries: list[_Entry]) -> tuple[bool, int]:
    try:
        return _run(evaluator, entries)
    except _Unrunnable:
        return False, 0


def _run(evaluator: Evaluator, entries: list[_Entry]) -> tuple[bool, int]:
    if isinstance(evaluator, Rule):
        return _rule(evaluator, entries)
    if isinstance(evaluator, StopPage):
        return _stop_page(evaluator, entries)
    if isinstance(evaluator, FindElement):
        return _find_element(evaluator, entries)
    if isinstance(evaluator, LastAction):
        return _last_action(evaluator, entries)
    if isinstance(evaluator, FindAction):
        return _find_action(evaluator, entries)
    if isinstance(evaluator, FindElementByAction):
        return _find_element_by_action(evaluator, entries)
    raise TypeError(f"not an evaluator: {evaluator!r}")


def _split_activity(rules: dict[str, str]) -> tuple[dict[str, str], str | None]:
    return {k: v for k, v in rules.items() if k != ACTIVITY}, rules.get(ACTIVITY)


def _holds(node: Node | None, rules: dict[str, str], how: str) -> bool:
    return node is not None and matches(node.attrs, rules, how)


def _stop_page(ev: StopPage, entries: list[_Entry]) -> tuple[bool, int]:
    if len(entries) < 2:
        return False, 0
    # The entry before last: on a whole trajectory, the final screen (the last entry is the stop action on
    # it). The index is returned whether or not the assertion holds.
    at = len(entries) - 2
    entry = entries[at]
    if entry.is_action:
        # Only in a consecutive rule's three-entry window can this be an action entry (always so in the first
        # window); the authors' code then reads the action as an activity and raises.
        raise _Unrunnable("stoppage inside a consecutive window that ends on a screen")
    check, activity = _split_activity(ev.check_rules)
    node = entry.tree.find(ev.match_rules, ev.match_type)
    # An activity check alone still needs the matched element: with none, the assertion fails.
    return _holds(node, check, ev.check_type) and (activity is None or activity == entry.activity_name), at


def _find_element(ev: FindElement, entries: list[_Entry]) -> tuple[bool, int]:
    match, match_activity = _split_activity(ev.match_rules)
    check, check_activity = _split_activity(ev.check_rules)
    for at, entry in enumerate(entries):
        if entry.is_action:
            continue
        # The activity is compared for equality even when match_type is include.
        if match_activity is not None and match_activity != entry.activity_name:
            continue
        node = entry.tree.find(match, ev.match_type)
        if node is not None:
            # Only the first screen with a match is checked: a later screen that would pass is not tried.
            same_activity = check_activity is None or check_activity == entry.activity_name
            return _holds(node, check, ev.check_type) and same_activity, at
    return False, 0


def _action_fits(entry: _Entry, rules: dict[str, str], how: str) -> bool:
    """The authors' action test: rules naming only action_type/message are compared with the action; any
    other key sends the test to the element under the action's point, whose attributes join the action's."""
    kind = evaluator_type(entry.action)
    facts = {"action_type": kind}
    if kind == "input":  # only their text actions carry a message: "message" never matches a click
        facts["message"] = entry.action.get("message") or ""
    if all(key in ACTION_KEYS for key in rules):  # also when there are no rules: any action fits
        return matches(facts, rules, how)
    point = action_point(entry.action)
    if point is None:
        return False
    # The first node in search order that matches the element rules and contains the point; only that node
    # is then compared with every rule (with include, action_type "click" also fits "longclick").
    node = entry.tree.find({k: v for k, v in rules.items() if k not in ACTION_KEYS}, how, point)
    return node is not None and matches({**facts, **node.attrs}, rules, how)


def _first_action(entries: list[_Entry], rules: dict[str, str], how: str) -> int | None:
    fitting = (at for at, entry in enumerate(entries) if entry.is_action and _action_fits(entry, rules, how))
    return next(fitting, None)


def _last_action(ev: LastAction, entries: list[_Entry]) -> tuple[bool, int]:
    if len(entries) < 3:
        return False, 0
    # Third from last: the action before the final stop (the entries end screen, stop).
    at = len(entries) - 3
    entry = entries[at]
    if not entry.is_action:
        # Only in a consecutive window (always so in the first one); the authors' code raises there.
        raise _Unrunnable("lastaction inside a consecutive window that starts on a screen")
    return _action_fits(entry, ev.check_rules, ev.check_type), at


def _find_action(ev: FindAction, entries: list[_Entry]) -> tuple[bool, int]:
    at = _first_action(entries, ev.match_rules, ev.match_type)
    if at is None:
        return False, 0
    # check_rules are tried on the first matching action only, not on later ones.
    return _action_fits(entries[at], ev.check_rules, ev.check_type), at


def _find_element_by_action(ev: FindElementByAction, entries: list[_Entry]) -> tuple[bool, int]:
    at = _first_action(entries, ev.action_match_rules, ev.action_match_type)
    if at is None:
        return False, 0
    # The element is looked up anywhere on the screen the action was taken on (not under its point).
    node = entries[at].tree.find(ev.element_match_rules, ev.element_match_type)
    return _holds(node, ev.check_rules, ev.check_type), at


def _rule(ev: Rule, entries: list[_Entry]) -> tuple[bool, int]:
    if ev.order == "sequential":
        # Each evaluator searches from where the previous one matched, that entry included: the same action
        # can satisfy two evaluators in a row (two identical findactions pass with one click).
        at = 0
        for sub in ev.evaluators:
            ok, offset = _run(sub, entries[at:])
            at += offset
            if not ok:
                return False, at
        return True, at
    if ev.order == "consecutive":
        # From each start, every evaluator must hold within a window of three entries (a step and a half)
        # beginning where the previous one matched.
        for start in range(len(entries)):
            at, ok = start, True
            for sub in ev.evaluators:
                ok, offset = _run(sub, entries[at:at + 3])
                at += offset
                if not ok:
                    break
            if ok:
                return True, at
        return False, 0
    # present: each holds somewhere on the whole trajectory; the furthest index reached is returned.
    furthest = -1
    for sub in ev.evaluators:
        ok, at = _run(sub, entries)
        furthest = max(furthest, at)
        if not ok:
            return False, furthest
    return True, furthest


# -- scoring ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TaskScore:
    passed: list[bool]  # one per top-level evaluator

    @property
    def success(self) -> bool:
        # With no evaluators this is True: the authors' MainEvaluator accepts any trajectory then.
        return all(self.passed)

    @property
    def completion(self) -> float | None:
        # The authors' ACP raises "evaluator is empty" for a task without evaluators; None says "undefined".
        return sum(self.passed) / len(self.passed) if self.passed else None


def score_task(evaluators: Sequence[Evaluator], trace: Sequence[TraceStep]) -> TaskScore:
    return TaskScore(reference_check(evaluators, trace))


def reference_check(evaluators: Sequence[Evaluator], trace: Sequence[TraceStep]) -> list[bool]:
    """Whether each evaluator holds on the trajectory (for the reference trajectory, all should)."""
    entries = _flatten(trace)
    return [_evaluate(e, entries)[0] for e in evaluators]


# -- words --------------------------------------------------------------------------------------------
def describe(evaluator: Evaluator) -> str:
    """One line in words, e.g. "final screen has resource-id=…/op_sum with text=10.00"."""
    e = evaluator
    if isinstance(e, Rule):
        return f"{e.order} [{'; '.join(describe(sub) for sub in e.evaluators)}]"
    if isinstance(e, LastAction):
        return f"last action before stop has {_said(e.check_rules, e.check_type, ANY_KIND)}"
    if isinstance(e, FindElementByAction):
        action = _said(e.action_match_rules, e.action_match_type, ANY_KIND)
        element = _said(e.element_match_rules, e.element_match_type, ANY)
        return f"at an action with {action}, the screen has {element}" + _with(e.check_rules, e.check_type)
    if type(e) not in _OPENINGS:
        raise TypeError(f"not an evaluator: {evaluator!r}")
    matched = _said(e.match_rules, e.match_type, ANY_KIND if isinstance(e, FindAction) else ANY)
    return f"{_OPENINGS[type(e)]} {matched}" + _with(e.check_rules, e.check_type)


ANY, ANY_KIND = "any element", "any kind"
_OPENINGS = {StopPage: "final screen has", FindElement: "some screen has", FindAction: "an action with"}


def _said(rules: dict[str, str], how: str, empty: str) -> str:
    if not rules:
        return empty
    joint = "=" if how == "equal" else " containing "
    return ", ".join(f"{key}{joint}{' '.join(str(value).split())}" for key, value in rules.items())


def _with(rules: dict[str, str], how: str) -> str:
    return f" with {_said(rules, how, '')}" if rules else ""
