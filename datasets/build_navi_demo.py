"""Rebuild datasets/navi_demo: multi-step episodes made with our own pages, and ambiguous variants.

    .venv/bin/python datasets/build_navi_demo.py

Six small flows (a shop, a restaurant booking, phone settings, a wallet, a flight search,
an alarm) are Jinja2 pages in resources/flows. Every step renders its screen with the
NEXT action's target marked gold (data-sl-label) and a few other candidates marked other;
one Renderer screenshots them and reads the boxes from the DOM, so no box is drawn by hand.

Each flow becomes a source episode (scenario "navigation", accepted, the low-level
instruction on every step, meta.navi with the original task and the step kinds) and one
or two hand-written ambiguous episodes (key <source>-ambiguous-<n>, scenario "ambiguous",
goal = the ambiguous task, the same screens and boxes, meta.navi with the QA pair; see
desktop_app/navi/model.py). Two of those stay pending so the verification view has work.
Everything goes through formats/ingest.py into a scratch project and is exported in
ScreenLab's JSONL (datasets/navi_demo/episodes.jsonl + images/).
"""

from __future__ import annotations

import io
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

import jinja2
from PIL import Image

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from desktop_app.formats.ingest import ingest  # noqa: E402
from desktop_app.formats.records import EpisodeRecord, StepRecord, Where  # noqa: E402
from desktop_app.formats.transfer import export_path  # noqa: E402
from desktop_app.navi.model import CHECKLIST, SCENARIO, NaviInfo, QAPair  # noqa: E402
from desktop_app.paths import resources_dir  # noqa: E402
from desktop_app.render.renderer import ORIGIN, VIEWPORTS, Rendered, Renderer  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402
from desktop_app.synth.save import dom_boxes  # noqa: E402

OUT = ROOT / "navi_demo"
AUTHOR = "screenlab-demo"
REVIEW_KIND = "ambiguous_task"
STOPWORDS = {"a", "an", "the", "to", "in", "on", "at", "for", "of", "and", "with", "from", "by"}


@dataclass(frozen=True)
class FlowStep:
    screen: str  # which screen of the template
    target: str  # the id of the element this step acts on (marked gold)
    instruction: str  # the low-level instruction
    kind: str  # informative (a choice that comes from the user) | transactional
    text: str = ""  # typed text: the action is a `type` into the target
    sets: dict = field(default_factory=dict)  # what the action changes for the later screens


@dataclass(frozen=True)
class Variant:
    """A hand-written ambiguous task: the original without the information of one step."""

    task: str
    step: int  # the informative step whose information was removed (= the ASK step)
    question: str
    answer: str  # the user's intention, not an operation
    overlap: str  # the words of the original task that were removed
    status: str = "accepted"


@dataclass(frozen=True)
class Flow:
    key: str
    template: str
    viewport: str
    platform: str
    task: str
    state: dict
    steps: list[FlowStep]
    variants: list[Variant]


FLOWS = [
    Flow(
        key="navi-stride-shoes", template="shop", viewport="desktop", platform="web",
        task="Order the blue running shoes in size 42 from Stride.",
        state={"colour": "", "size": ""},
        steps=[
            FlowStep("listing", "p-aero", "Click the Aero Runner running shoes", "informative"),
            FlowStep("product", "colour-blue", "Select the blue colour", "informative", sets={"colour": "blue"}),
            FlowStep("product", "size-42", "Select size 42", "informative", sets={"size": "42"}),
            FlowStep("product", "add-to-bag", "Click the Add to bag button", "transactional"),
            FlowStep("bag", "checkout", "Click Checkout in the bag", "transactional"),
            FlowStep("checkout", "place-order", "Click Place order", "transactional"),
        ],
        variants=[
            Variant("Order the blue running shoes from Stride.", 2, "Which size do you need?", "Size 42.",
                    "in size 42"),
            Variant("Order the running shoes in size 42 from Stride.", 1, "Which colour would you like?",
                    "The blue ones.", "blue"),
        ],
    ),
    Flow(
        key="navi-olive-booking", template="booking", viewport="desktop", platform="web",
        task="Book a table for 4 people at Olive & Ash on Friday 14 June at 19:30.",
        state={"party": "", "date": "", "time": ""},
        steps=[
            FlowStep("restaurant", "book", "Click the Book a table button", "transactional"),
            FlowStep("booking", "party-4", "Select 4 guests", "informative", sets={"party": "4"}),
            FlowStep("booking", "date-14", "Select Friday 14 June in the calendar", "informative",
                     sets={"date": "14"}),
            FlowStep("booking", "time-1930", "Select the 19:30 time slot", "informative", sets={"time": "19:30"}),
            FlowStep("booking", "confirm", "Click Confirm booking", "transactional"),
        ],
        variants=[
            Variant("Book a table at Olive & Ash on Friday 14 June at 19:30.", 1, "How many people is the table for?",
                    "Four of us.", "for 4 people"),
            Variant("Book a table for 4 people at Olive & Ash on Friday 14 June.", 3,
                    "What time would you like the table?", "At half past seven in the evening.", "at 19:30"),
        ],
    ),
    Flow(
        key="navi-settings-timeout", template="settings", viewport="mobile", platform="android",
        task="Set the screen timeout to 2 minutes in Settings.",
        state={"timeout": "30 seconds"},
        steps=[
            FlowStep("home", "app-settings", "Tap the Settings app", "transactional"),
            FlowStep("settings", "display", "Tap Display", "transactional"),
            FlowStep("display", "timeout", "Tap Screen timeout", "transactional"),
            FlowStep("timeout", "t-2-minutes", "Select 2 minutes", "informative"),
        ],
        variants=[
            Variant("Change the screen timeout in Settings.", 3,
                    "How long should the screen stay on before it turns off?", "Two minutes.", "to 2 minutes"),
        ],
    ),
    Flow(
        key="navi-pocketly-send", template="wallet", viewport="mobile", platform="android",
        task="Send $25 to Maya Patel in Pocketly with the note 'Pizza night'.",
        state={"amount": "", "note": ""},
        steps=[
            FlowStep("home", "send", "Tap Send", "transactional"),
            FlowStep("contacts", "c-maya", "Tap Maya Patel", "informative"),
            FlowStep("amount", "amount", "Enter 25 as the amount", "informative", text="25", sets={"amount": "25"}),
            FlowStep("amount", "note", "Type Pizza night in the note field", "informative", text="Pizza night",
                     sets={"note": "Pizza night"}),
            FlowStep("amount", "review", "Tap Review", "transactional"),
            FlowStep("confirm", "confirm-send", "Tap Send $25.00 to confirm", "transactional"),
        ],
        variants=[
            Variant("Send $25 in Pocketly with the note 'Pizza night'.", 1, "Who should I send the money to?",
                    "Maya Patel.", "to Maya Patel", status="pending"),
            Variant("Send $25 to Maya Patel in Pocketly.", 3, "Should the payment have a note?",
                    "Yes, call it Pizza night.", "with the note 'Pizza night'"),
        ],
    ),
    Flow(
        key="navi-skyscout-flights", template="flights", viewport="desktop", platform="web",
        task="Search for flights from Lisbon to Berlin on 12 May and show only non-stop flights.",
        state={"origin": "", "destination": "", "date": "", "picker": False},
        steps=[
            FlowStep("search", "from", "Type Lisbon in the From field", "informative", text="Lisbon",
                     sets={"origin": "Lisbon"}),
            FlowStep("search", "to", "Type Berlin in the To field", "informative", text="Berlin",
                     sets={"destination": "Berlin"}),
            FlowStep("search", "depart", "Click the Depart date field", "transactional", sets={"picker": True}),
            FlowStep("search", "d-12", "Select 12 May in the calendar", "informative",
                     sets={"date": "Sun 12 May", "picker": False}),
            FlowStep("search", "search", "Click Search flights", "transactional"),
            FlowStep("results", "stops-nonstop", "Tick the Non-stop filter", "informative"),
        ],
        variants=[
            Variant("Search for flights from Lisbon to Berlin and show only non-stop flights.", 3,
                    "Which day do you want to fly?", "On 12 May.", "on 12 May"),
            Variant("Search for flights from Lisbon and show only non-stop flights.", 1,
                    "Where would you like to fly to?", "To Berlin.", "to Berlin", status="pending"),
        ],
    ),
    Flow(
        key="navi-clock-alarm", template="alarm", viewport="mobile", platform="android",
        task="Set an alarm for 6:45 AM on weekdays with the label 'Gym'.",
        state={"time": "", "repeat": "", "label": ""},
        steps=[
            FlowStep("alarms", "add", "Tap the add alarm button", "transactional"),
            FlowStep("edit", "time", "Type 6:45 as the alarm time", "informative", text="6:45", sets={"time": "6:45"}),
            FlowStep("edit", "rep-weekdays", "Tap Weekdays", "informative", sets={"repeat": "weekdays"}),
            FlowStep("edit", "label", "Type Gym as the label", "informative", text="Gym", sets={"label": "Gym"}),
            FlowStep("edit", "save", "Tap Save", "transactional"),
        ],
        variants=[
            Variant("Set an alarm on weekdays with the label 'Gym'.", 1, "What time should the alarm go off?",
                    "At 6:45 in the morning.", "for 6:45 AM"),
        ],
    ),
]


def environment() -> jinja2.Environment:
    """Rooted at resources/ so flow pages extend scenarios/base.html.j2 and reuse its macros."""
    return jinja2.Environment(loader=jinja2.FileSystemLoader(resources_dir()), autoescape=True,
                              undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def words(text: str) -> set[str]:
    """The words that carry information (numbers and non-stopwords), lower-cased."""
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS}


def check_variant(flow: Flow, variant: Variant) -> None:
    step = flow.steps[variant.step]
    problems = []
    if step.kind != "informative":
        problems.append(f"step {variant.step} is {step.kind}, not informative")
    if variant.overlap.lower() not in flow.task.lower():
        problems.append(f"overlap {variant.overlap!r} is not in the task")
    if len(variant.task) >= len(flow.task):
        problems.append("the ambiguous task is not shorter")
    if words(variant.overlap) & words(variant.task):
        problems.append(f"the ambiguous task still says {sorted(words(variant.overlap) & words(variant.task))}")
    if problems:
        raise ValueError(f"{flow.key}: {variant.task!r}: " + "; ".join(problems))


def small_png(png: bytes) -> bytes:
    """A 256-colour PNG of the screenshot: flat pages have few colours, so median-cut keeps them
    (mean error well under one level per channel) at about a third of the size (the demo must stay small)."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    out = io.BytesIO()
    image.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(out, format="PNG",
                                                                                        optimize=True)
    return out.getvalue() if out.tell() < len(png) else png


def render_steps(renderer: Renderer, env: jinja2.Environment, flow: Flow) -> list[StepRecord]:
    template = env.get_template(f"flows/{flow.template}.html.j2")
    viewport = VIEWPORTS[flow.viewport]
    state = dict(flow.state)
    steps = []
    for index, step in enumerate(flow.steps):
        html = template.render(viewport=viewport.name, origin=ORIGIN, screen=step.screen, target=step.target,
                               s=state)
        rendered: Rendered = renderer.render(html, viewport)
        boxes = dom_boxes(rendered)
        golds = [b for b in boxes if b.label == "gold"]
        where = f"{flow.key} step {index} ({step.screen}, target {step.target})"
        if len(golds) != 1 or golds[0].box is None or golds[0].meta.get("covered"):
            raise ValueError(f"{where}: expected one visible gold element, found {len(golds)}")
        gold = golds[0]
        if (gold.action_type == "type") != bool(step.text):
            raise ValueError(f"{where}: the target's action is {gold.action_type}, the step types {step.text!r}")
        for box in boxes:
            box.author = AUTHOR
        gold.type_text = step.text
        steps.append(StepRecord(
            image=Path(f"{flow.key}-{index}.png"), image_bytes=small_png(rendered.png), boxes=boxes,
            platform=flow.platform, screen_source=f"render:flows/{flow.template}.html.j2",
            screen_meta={"viewport": viewport.name, "template": f"flows/{flow.template}.html.j2",
                         "screen": step.screen},
            instruction=step.instruction,
        ))
        state.update(step.sets)
    return steps


def copy_steps(steps: list[StepRecord]) -> list[StepRecord]:
    return [replace(s, boxes=[replace(b, meta=dict(b.meta)) for b in s.boxes]) for s in steps]


def records_of(flow: Flow, steps: list[StepRecord]) -> list[EpisodeRecord]:
    kinds = [s.kind for s in flow.steps]
    flow_meta = {"template": f"flows/{flow.template}.html.j2", "viewport": flow.viewport, "generator": AUTHOR}
    source = EpisodeRecord(
        key=flow.key, where=Where(Path(flow.key)), goal=flow.task, scenario="navigation", review_status="accepted",
        meta={"flow": flow_meta,
              "navi": NaviInfo(original_task=flow.task, ambiguous_task="", step_kinds=kinds).to_json()},
        steps=steps,
    )
    records = [source]
    for n, variant in enumerate(flow.variants, start=1):
        check_variant(flow, variant)
        key = f"{flow.key}-ambiguous-{n}"
        accepted = variant.status == "accepted"
        info = NaviInfo(
            original_task=flow.task, ambiguous_task=variant.task, step_kinds=kinds, source_episode=flow.key,
            qa_pairs=[QAPair(ask_step=variant.step, removed_step=variant.step, question=variant.question,
                             answer=variant.answer, overlap=variant.overlap)],
            checklist={name: True for name in CHECKLIST} if accepted else {},
        )
        records.append(EpisodeRecord(
            key=key, where=Where(Path(key)), goal=variant.task, scenario=SCENARIO, review_status=variant.status,
            meta={"flow": flow_meta, "navi": info.to_json()}, steps=copy_steps(steps),
            reviews=[{"kind": REVIEW_KIND, "generator": "hand-written", "prompt": "", "status": variant.status,
                      "reviewer": AUTHOR if accepted else "",
                      "payload": {"source_episode": flow.key, "removed_step": variant.step}}],
        ))
    return records


def build(out: Path = OUT) -> dict:
    env = environment()
    records: list[EpisodeRecord] = []
    with Renderer() as renderer:
        for flow in FLOWS:
            records += records_of(flow, render_steps(renderer, env, flow))
    scratch = Path(tempfile.mkdtemp(prefix="screenlab-navi-demo-"))
    try:
        with Project.init(scratch / "project") as project:
            ingest(project, records, "navi-demo", "datasets/build_navi_demo.py")
            if out.exists():
                shutil.rmtree(out)
            export_path(project, out, "screenlab")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    return {"episodes": len(records), "steps": sum(len(r.steps) for r in records), "bytes": size}


if __name__ == "__main__":
    result = build()
    print(f"built {result['episodes']} episodes ({result['steps']} steps) in {OUT} ({result['bytes'] / 1e6:.2f} MB)")
