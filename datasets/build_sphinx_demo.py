"""Rebuild datasets/sphinx_demo: our six navigation flows in the layout of the Sphinx benchmark.

    .venv/bin/python datasets/build_sphinx_demo.py

The flows are the ones of datasets/build_navi_demo.py (FLOWS, rendered the same way: one Jinja2
page per step in resources/flows, the step's target marked gold, one Renderer). After each render
the page is dumped as an Android uiautomator hierarchy (desktop_app/render/dom_tree.py) and the gold
element is looked up in that dump by its bounds, so every reference action names a node of its own
N.xml. One more screen is rendered after the last step (the final screen, where the stop happens).

Written, per task (ids 1..6), in groundtruth/<id>/<app>/: N.png + N.xml for every screen,
meta.json (the reference actions, ending with stop), activities.json, skills.json and a hand-written
evaluator.json; at the top: task_info.json, questions.json (knowledge probes), lowlevel_tasks.json
with lowlevel_tasks/N.png|N.xml (single-step grounding) and a README. Nothing is checked here except
that each dump parses; the data is meant to be checked by the importer and its evaluators.

Before a page is dumped, a small script gives it what a native app's hierarchy would have and our
templates leave to CSS: marked candidates get `data-sl-id` = their role (resource-ids shared per kind
of view, like Android's), `cursor: pointer` (clickable), ARIA state from the `on` class (selected /
checked; check boxes, radios and switches get their role); the phone's status and navigation bars
become system UI windows. None of it changes the layout, so the dump matches the screenshot.
"""

from __future__ import annotations

import html as htmllib
import json
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT))

from build_navi_demo import FLOWS, Flow, FlowStep, environment, small_png  # noqa: E402

from desktop_app.a11y.tree import UiTree  # noqa: E402
from desktop_app.render.dom_tree import dom_tree_xml  # noqa: E402
from desktop_app.render.renderer import ORIGIN, VIEWPORTS, Renderer  # noqa: E402

OUT = ROOT / "sphinx_demo"
AUTHOR = "ScreenLab demo"

# Run on the rendered page before the dump: attributes only, nothing that moves a pixel.
PREPARE = """
() => {
  const SYSTEM = {system_back: 'back', system_home: 'home', system_recents: 'recent_apps'};
  for (const bar of document.querySelectorAll('.status-bar, .nav-bar')) {
    bar.setAttribute('data-sl-package', 'com.android.systemui');
  }
  for (const el of document.querySelectorAll('[data-sl-label]')) {
    const role = el.dataset.slRole || '';
    if (!el.id && role) el.dataset.slId = SYSTEM[role] || role;
    if ((el.dataset.slAction || 'click') !== 'type') el.style.cursor = 'pointer';
    if (el.classList.contains('on')) el.setAttribute('aria-selected', 'true');
    const box = el.querySelector('.box'), radio = el.querySelector('.radio');
    if (el.classList.contains('toggle')) {
      el.setAttribute('role', 'switch');
      el.setAttribute('aria-checked', String(el.classList.contains('on')));
    } else if (box) {
      el.setAttribute('role', 'checkbox');
      el.setAttribute('aria-checked', String(box.classList.contains('on')));
    } else if (radio) {
      el.setAttribute('role', 'radio');
      el.setAttribute('aria-checked', String(radio.classList.contains('on')));
    }
  }
}
"""

# The gold element's bounds, computed as dom_tree.py computes them.
GOLD_BOUNDS = """
() => {
  const el = document.querySelector('[data-sl-label="gold"]');
  if (!el) return null;
  const dpr = window.devicePixelRatio || 1, r = el.getBoundingClientRect();
  const W = Math.round(window.innerWidth * dpr), H = Math.round(window.innerHeight * dpr);
  const [x1, y1, x2, y2] = [r.left, r.top, r.right, r.bottom].map(v => Math.round(v * dpr));
  return [Math.max(0, x1), Math.max(0, y1), Math.min(W, x2), Math.min(H, y2)];
}
"""

SNACKBAR_STYLE = {
    "mobile": "left:16px;right:16px;bottom:64px",
    "desktop": "left:24px;bottom:24px;max-width:600px",
}


@dataclass(frozen=True)
class Final:
    """The screen after the last step: a screen of the template, what the last steps changed, and an
    optional snackbar (the templates have no "done" page; the builder adds the confirmation)."""

    screen: str
    sets: dict = field(default_factory=dict)
    snackbar: str = ""


@dataclass(frozen=True)
class Task:
    id: int
    flow: str  # the key of a flow in build_navi_demo.FLOWS
    app: str  # the folder under groundtruth/<id>/
    name: str  # the app's name, for the questions
    activities: dict  # template screen -> activity class (short name)
    final: Final
    skills: list  # (name, first step, last step)
    labels: dict = field(default_factory=dict)  # target -> text of the label the reference points at

    @property
    def template(self) -> str:
        return FLOW_BY_KEY[self.flow].template

    @property
    def package(self) -> str:
        return f"org.screenlab.{self.template}"

    def activity(self, screen: str) -> str:
        return f"{self.package}.{self.activities[screen]}"


FLOW_BY_KEY = {flow.key: flow for flow in FLOWS}

TASKS = [
    Task(1, "navi-stride-shoes", "stride", "Stride",
         {"listing": "ListingActivity", "product": "ProductActivity", "bag": "ProductActivity",
          "checkout": "CheckoutActivity"},
         Final("checkout", snackbar="Thank you! Order ST-20481 is placed: Aero Runner, Blue, EU 42."),
         [("choose the shoes, the colour and the size", 0, 2), ("add them to the bag and order", 3, 5)]),
    Task(2, "navi-olive-booking", "tabletime", "TableTime",
         {"restaurant": "RestaurantActivity", "booking": "BookingActivity"},
         Final("booking", snackbar="Table booked at Olive & Ash: 4 guests, Fri 14 June, 19:30."),
         [("open the booking form", 0, 0), ("choose guests, date and time and confirm", 1, 4)]),
    Task(3, "navi-settings-timeout", "settings", "Settings",
         {"home": "LauncherActivity", "settings": "SettingsActivity", "display": "DisplaySettingsActivity",
          "timeout": "DisplaySettingsActivity"},
         Final("display", sets={"timeout": "2 minutes"}),
         [("open the Display settings", 0, 1), ("change the screen timeout", 2, 3)],
         labels={"display": "Display"}),
    Task(4, "navi-pocketly-send", "pocketly", "Pocketly",
         {"home": "MainActivity", "contacts": "ContactsActivity", "amount": "SendMoneyActivity",
          "confirm": "SendMoneyActivity"},
         Final("home", snackbar="Sent $25.00 to Maya Patel"),
         [("pick the payee", 0, 1), ("enter the amount and the note", 2, 3), ("review and send", 4, 5)],
         labels={"c-maya": "Maya Patel"}),
    Task(5, "navi-skyscout-flights", "skyscout", "SkyScout",
         {"search": "SearchActivity", "results": "ResultsActivity"},
         Final("results", sets={"stops": "nonstop"}),
         [("search flights from Lisbon to Berlin on 12 May", 0, 4), ("show only non-stop flights", 5, 5)]),
    Task(6, "navi-clock-alarm", "clock", "Clock",
         {"alarms": "AlarmListActivity", "edit": "AlarmEditActivity"},
         Final("alarms", snackbar="Alarm Gym set for 6:45 AM on weekdays"),
         [("create a 6:45 AM weekday alarm named Gym", 0, 4)]),
]


def _find(kind: str, match: dict, check: dict | None = None, match_type: str = "equal",
          check_type: str = "equal") -> dict:
    return {"type": kind, "match_type": match_type, "match_rules": match, "check_type": check_type,
            "check_rules": check or {}}


def evaluators(task: Task) -> list[dict]:
    """Hand-written evaluators of each task (the authors' keys; see the README)."""
    rid = f"{task.package}:id/"
    if task.id == 1:
        return [
            _find("stoppage", {"resource-id": rid + "snackbar_text"}, {"text": "Order ST-20481 is placed"},
                  check_type="include"),
            _find("findaction", {"action_type": "click", "resource-id": rid + "size", "text": "42"}),
            {"type": "rule", "order": "sequential", "evaluators": [
                _find("findaction", {"action_type": "click", "resource-id": rid + "colour", "content-desc": "Blue"}),
                _find("findaction", {"action_type": "click", "resource-id": rid + "add_to_bag"}),
            ]},
            {"type": "lastaction", "check_type": "equal", "check_rules": {"action_type": "click", "text": "Place order"}},
        ]
    if task.id == 2:
        return [
            _find("stoppage", {"resource-id": rid + "time_slot", "text": "19:30"}, {"selected": "true"}),
            _find("stoppage", {"resource-id": rid + "snackbar_text"}, {"text": "4 guests, Fri 14 June"},
                  check_type="include"),
            _find("findaction", {"action_type": "click", "resource-id": rid + "date", "text": "14"}),
            {"type": "lastaction", "check_type": "equal",
             "check_rules": {"action_type": "click", "text": "Confirm booking"}},
        ]
    if task.id == 3:
        return [
            _find("stoppage", {"text": "After 2 minutes of inactivity"},
                  {"activity": task.activity("display")}),
            _find("findelement", {"resource-id": rid + "option", "text": "2 minutes"}, {"class": "android.widget.RadioButton"}),
            {"type": "rule", "order": "sequential", "evaluators": [
                _find("findaction", {"action_type": "click", "resource-id": rid + "app_icon", "text": "Settings"}),
                _find("findaction", {"action_type": "click", "resource-id": rid + "option", "text": "2 minutes"}),
            ]},
            {"type": "lastaction", "check_type": "equal", "check_rules": {"action_type": "click", "text": "2 minutes"}},
        ]
    if task.id == 4:
        return [
            _find("stoppage", {"resource-id": rid + "snackbar_text"}, {"text": "Sent $25.00 to Maya Patel"}),
            _find("findaction", {"action_type": "input", "message": "25"}),
            _find("findaction", {"action_type": "input", "message": "Pizza"}, match_type="include"),
            {"type": "findelementbyaction",
             "action_match_type": "equal", "action_match_rules": {"action_type": "click", "resource-id": rid + "review"},
             "element_match_type": "equal", "element_match_rules": {"resource-id": rid + "note_input"},
             "check_type": "equal", "check_rules": {"text": "Pizza night"}},
        ]
    if task.id == 5:
        return [
            {"type": "rule", "order": "sequential", "evaluators": [
                _find("findaction", {"action_type": "input", "message": "Lisbon"}),
                _find("findaction", {"action_type": "input", "message": "Berlin"}),
            ]},
            _find("findelement", {"text": "Sun 12 May"}, {"resource-id": rid + "date_input"}),
            _find("stoppage", {"class": "android.widget.CheckBox", "text": "Non-stop"}, {"checked": "true"}),
        ]
    if task.id == 6:
        return [
            _find("findaction", {"action_type": "input", "message": "6:45"}),
            _find("findaction", {"action_type": "input", "message": "Gym"}),
            {"type": "findelementbyaction",
             "action_match_type": "equal", "action_match_rules": {"action_type": "click", "resource-id": rid + "save"},
             "element_match_type": "equal", "element_match_rules": {"resource-id": rid + "repeat", "text": "Weekdays"},
             "check_type": "equal", "check_rules": {"selected": "true"}},
            {"type": "lastaction", "check_type": "equal",
             "check_rules": {"action_type": "click", "resource-id": rid + "save"}},
            _find("stoppage", {"resource-id": rid + "snackbar_text"}, {"text": "6:45 AM"}, check_type="include"),
        ]
    raise ValueError(f"no evaluators for task {task.id}")


QUESTIONS = [
    {"question": "I want the Aero Runner running shoes in blue, size 42. Which choice on the product page "
                 "matches my request?",
     "options": {"A": "Colour Coral, size 42", "B": "Colour Blue, size 42", "C": "Colour Blue, size 43",
                 "D": "Colour Violet, size 41"},
     "ground_truth": "B", "question_type": "intention_level", "app_name": ["Stride"], "app_cateory": "Shopping"},
    {"question": "I want to reserve a table at a restaurant for Friday evening. Which kind of app suits my "
                 "needs best?",
     "options": {"A": "A restaurant booking app", "B": "A food delivery app", "C": "A maps app",
                 "D": "A recipe app"},
     "ground_truth": "A", "question_type": "app_level", "app_name": ["TableTime"],
     "app_cateory": "Food & Drink"},
    {"question": "Where on an Android phone do I change how long the screen stays on before it turns off?",
     "options": {"A": "Settings > Sound & vibration", "B": "Settings > Battery",
                 "C": "Settings > Display > Screen timeout", "D": "Settings > Security & privacy"},
     "ground_truth": "C", "question_type": "app_level", "app_name": ["Settings"], "app_cateory": "Tools"},
    {"question": "I want to pay Maya Patel back $25 for pizza night. Which payment matches my request?",
     "options": {"A": "Send $25.00 to Maya Perez with the note 'Pizza night'",
                 "B": "Send $52.00 to Maya Patel with the note 'Pizza night'",
                 "C": "Request $25.00 from Maya Patel with the note 'Pizza night'",
                 "D": "Send $25.00 to Maya Patel with the note 'Pizza night'"},
     "ground_truth": "D", "question_type": "intention_level", "app_name": ["Pocketly"], "app_cateory": "Finance"},
    {"question": "In a flight search app, which filter shows only flights without a change of plane?",
     "options": {"A": "Non-stop", "B": "1 stop", "C": "Morning (06-12)", "D": "Cheapest"},
     "ground_truth": "A", "question_type": "app_level", "app_name": ["SkyScout"], "app_cateory": "Travel"},
    {"question": "I go to the gym before work every weekday and need to wake up at a quarter to seven. "
                 "Which alarm satisfies my need?",
     "options": {"A": "6:45 PM, Weekdays, label Gym", "B": "6:45 AM, Weekends, label Gym",
                 "C": "6:45 AM, Weekdays, label Gym", "D": "7:45 AM, Weekdays, label Gym"},
     "ground_truth": "C", "question_type": "intention_level", "app_name": ["Clock"], "app_cateory": "Tools, Time"},
]

# Single-step grounding tasks: (task id, target of the step, instruction).
LOWLEVEL = [
    (1, "size-42", "Tap the size 42 button."),
    (1, "add-to-bag", "Add the shoes to the bag."),
    (2, "date-14", "Pick Friday 14 June in the calendar."),
    (3, "display", "Open the Display settings."),
    (4, "amount", 'Type "25" into the amount field.'),
    (4, "confirm-send", "Confirm sending $25.00 to Maya."),
    (5, "stops-nonstop", "Tick the Non-stop filter."),
    (6, "rep-weekdays", "Make the alarm repeat on weekdays."),
]


@dataclass
class Screen:
    png: bytes
    xml: str
    tree: UiTree
    gold: tuple | None  # the gold element's bounds (screenshot pixels), None on the final screen


def with_snackbar(html: str, text: str, viewport: str) -> str:
    if not text:
        return html
    bar = (f'<div id="snackbar_text" role="status" style="position:fixed;{SNACKBAR_STYLE[viewport]};z-index:50;'
           'background:#323232;color:#fff;padding:14px 16px;border-radius:6px;font-size:14px;line-height:20px;'
           f'box-shadow:0 3px 10px rgba(0,0,0,.3)">{htmllib.escape(text)}</div>')
    head, sep, tail = html.rpartition("</body>")
    if not sep:
        raise ValueError("the page has no </body>")
    return head + bar + sep + tail


def capture(renderer: Renderer, html: str, viewport: str, task: Task, screen: str) -> Screen:
    rendered = renderer.render(html, VIEWPORTS[viewport])
    page = renderer._page  # the page Renderer.render left loaded, screenshot taken
    page.evaluate(PREPARE)
    gold = page.evaluate(GOLD_BOUNDS)
    xml = dom_tree_xml(page, task.package, task.activities[screen])
    tree = UiTree.from_xml(xml)  # the builder's one check: the dump parses
    return Screen(small_png(rendered.png), xml, tree, tuple(gold) if gold else None)


def render_task(renderer: Renderer, env, task: Task) -> list[tuple[str, Screen]]:
    """(screen name, Screen) for every step and for the final screen."""
    flow: Flow = FLOW_BY_KEY[task.flow]
    template = env.get_template(f"flows/{flow.template}.html.j2")
    viewport = VIEWPORTS[flow.viewport].name
    state = dict(flow.state)
    out = []
    for step in flow.steps:
        html = template.render(viewport=viewport, origin=ORIGIN, screen=step.screen, target=step.target, s=state)
        out.append((step.screen, capture(renderer, html, viewport, task, step.screen)))
        state.update(step.sets)
    state.update(task.final.sets)
    html = template.render(viewport=viewport, origin=ORIGIN, screen=task.final.screen, target="", s=state)
    html = with_snackbar(html, task.final.snackbar, viewport)
    out.append((task.final.screen, capture(renderer, html, viewport, task, task.final.screen)))
    return out


def target_node(tree: UiTree, bounds: tuple, where: str):
    """The interactable node of the dump at the gold element's bounds (the outermost when several)."""
    for node in tree.app_nodes():
        if node.bounds == bounds and node.interactable:
            return node
    raise ValueError(f"{where}: no interactable node with bounds {list(bounds)} in the dump")


def label_node(tree: UiTree, button, text: str, where: str):
    for node_id in tree.subtree(button.id)[1:]:
        node = tree.nodes[node_id]
        if node.text == text and node.cls == "android.widget.TextView":
            return node
    raise ValueError(f"{where}: no TextView {text!r} inside the target")


def reference_action(task: Task, step: FlowStep, screen: Screen, index: int) -> dict:
    where = f"task {task.id} step {index} ({step.target})"
    if screen.gold is None:
        raise ValueError(f"{where}: no gold element on the page")
    node = target_node(screen.tree, screen.gold, where)
    if step.target in task.labels:
        node = label_node(screen.tree, node, task.labels[step.target], where)
    element = dict(node.attrs)
    if step.text:
        return {"type": "input", "message": step.text, "element": element}
    return {"type": "click", "element": element}


def write_json(path: Path, data) -> None:
    path.write_text(json.dumps(data, indent=4, ensure_ascii=False) + "\n", encoding="utf-8")


def build(out: Path = OUT) -> dict:
    env = environment()
    if out.exists():
        shutil.rmtree(out)
    (out / "lowlevel_tasks").mkdir(parents=True)
    info, lowlevel, actions_of = [], [], {}
    screens_of: dict[int, list[tuple[str, Screen]]] = {}
    with Renderer() as renderer:
        for task in TASKS:
            flow = FLOW_BY_KEY[task.flow]
            screens = render_task(renderer, env, task)
            screens_of[task.id] = screens
            folder = out / "groundtruth" / str(task.id) / task.app
            folder.mkdir(parents=True)
            actions = [reference_action(task, step, screen, i)
                       for i, (step, (_name, screen)) in enumerate(zip(flow.steps, screens, strict=False))]
            actions.append({"type": "stop", "element": None})
            actions_of[task.id] = actions
            for i, (_name, screen) in enumerate(screens):
                (folder / f"{i}.png").write_bytes(screen.png)
                (folder / f"{i}.xml").write_text(screen.xml, encoding="utf-8")
            write_json(folder / "meta.json", actions)
            write_json(folder / "activities.json", [[task.package, task.activity(name)] for name, _ in screens])
            write_json(folder / "skills.json", [{"name": name, "length": last - first + 1, "start_index": first,
                                                 "end_index": last} for name, first, last in task.skills])
            write_json(folder / "evaluator.json", evaluators(task))
            info.append({"id": task.id, "description": flow.task, "apps": [task.app]})
    by_id = {task.id: task for task in TASKS}
    for n, (task_id, target, instruction) in enumerate(LOWLEVEL, start=1):
        task = by_id[task_id]
        index = next(i for i, step in enumerate(FLOW_BY_KEY[task.flow].steps) if step.target == target)
        screen = screens_of[task_id][index][1]
        (out / "lowlevel_tasks" / f"{n}.png").write_bytes(screen.png)
        (out / "lowlevel_tasks" / f"{n}.xml").write_text(screen.xml, encoding="utf-8")
        lowlevel.append({"id": n, "app": task.app, "instruction": instruction,
                         "groundtruth": actions_of[task_id][index]})
    write_json(out / "task_info.json", info)
    write_json(out / "questions.json", [{**q, "author": AUTHOR} for q in QUESTIONS])
    write_json(out / "lowlevel_tasks.json", lowlevel)
    (out / "README.md").write_text(README, encoding="utf-8")
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    return {"tasks": len(TASKS), "screens": sum(len(s) for s in screens_of.values()), "lowlevel": len(lowlevel),
            "bytes": size}


README = """# sphinx_demo

A small dataset in the layout of the Sphinx benchmark (Ran et al., 2025; github.com/PKU-ASE-RISE/Sphinx),
made from ScreenLab's own demo apps, so the Sphinx importer, the tree view and the evaluators can be tried
without the authors' data. Nothing here comes from the authors' files: the screens are our six navigation
flows (resources/flows/*.html.j2, the same flows as datasets/navi_demo) rendered in Chromium.

Rebuild it with

    .venv/bin/python datasets/build_sphinx_demo.py

## What is in it

| id | app | package | viewport | steps (+ stop) | task |
|---|---|---|---|---|---|
{rows}

* `groundtruth/<id>/<app>/N.png` + `N.xml`: one screen per action, the last one is the final screen on
  which the reference stops. `N.xml` is a uiautomator dump of the rendered page written by
  `desktop_app/render/dom_tree.py`; bounds are screenshot pixels. Desktop flows are 1280x800 screens,
  phone flows 412x915 (device pixel ratio 1). On phone screens the status bar and the navigation bar
  are separate `com.android.systemui` windows, as in real dumps.
* `meta.json`: the reference actions (`click`, or `input` with `message` where the flow types text),
  each with the attributes of its node in `N.xml`, ending with `{"type": "stop", "element": null}`.
  The number of screens equals the number of actions (stop included).
* `activities.json`: `[package, activity]` per screen; `skills.json`: the sub-goals;
  `evaluator.json`: hand-written evaluators (stoppage, findelement, findaction, findelementbyaction,
  lastaction, and a `rule` with order `sequential` in tasks 1, 3 and 5).
* `task_info.json`, `questions.json` (6 knowledge probes, 3 `intention_level`, 3 `app_level`),
  `lowlevel_tasks.json` + `lowlevel_tasks/N.png|N.xml` (8 single-step grounding tasks).

## How the pages become app screens

* The final screen is the last page of the flow in its final state; the templates have no "done" page,
  so where the app would confirm (order, booking, payment, alarm) the builder adds a snackbar
  (`resource-id` `<package>:id/snackbar_text`), which the stoppage evaluators read.
* Resource-ids are `<package>:id/<role>` of the marked candidates of the templates (`size`, `colour`,
  `add_to_bag`, `list_item`, `option`, ...): shared by all views of a kind, as on Android, so
  evaluators combine them with `text` or `content-desc`.
* Chosen chips and slots (the `on` class) are `selected="true"`; the flight filters are CheckBoxes,
  the timeout options RadioButtons, the alarm switches Switches (`checked` from the page).
* Activities are per screen (`org.screenlab.<flow>.<Name>Activity`); dialogs, drawers and sheets keep
  the activity of the page under them. The launcher screen of the Settings task is written with the
  Settings package (`org.screenlab.settings.LauncherActivity`) for simplicity.

## Reference actions that point at a label, not at its button

As in the real data (the paper corrected 74 grounding boxes that sat on a small text label instead of
the button around it), two reference actions deliberately point at the non-clickable TextView inside
the clickable row instead of the row itself:

* task 3 (settings), step 1 "Tap Display": the element is the TextView "Display" (`clickable="false"`)
  inside the clickable Display row;
* task 4 (pocketly), step 1 "Tap Maya Patel": the element is the TextView "Maya Patel"
  (`clickable="false"`) inside the clickable contact row.

Low-level task 4 ("Open the Display settings.") inherits the first of them. All other reference
actions point at the clickable (or editable) node itself. "Promote to clickable ancestor" fixes them.
"""


def _readme() -> str:
    rows = []
    for task in TASKS:
        flow = FLOW_BY_KEY[task.flow]
        rows.append(f"| {task.id} | {task.app} | {task.package} | {flow.viewport} | {len(flow.steps)} (+1) "
                    f"| {flow.task} |")
    return README.replace("{rows}", "\n".join(rows))


README = _readme()


if __name__ == "__main__":
    result = build()
    print(f"built {result['tasks']} tasks ({result['screens']} screens) and {result['lowlevel']} low-level tasks "
          f"in {OUT} ({result['bytes'] / 1e6:.2f} MB)")
