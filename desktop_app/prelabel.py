"""Pre-labelling with your own model (as X-AnyLabeling's auto-labelling or Label Studio's ML backend): any
OpenAI-compatible grounding model is run on the samples like an agent under test (runs/engine.py, the
`screen` protocol), and its answers become proposals on each screen. An answer is a point (where the model
would click); a proposal is the element around that point, found the way an accepted OCR word is grown
(ocr/suggested_box.py): the outlined element under it, else its line of text, else a small box around it.

In the window the proposals are suggestions the annotator accepts or dismisses; `apply_run` accepts a
run's proposals in bulk (the command line's `screenlab prelabel`), never on a step that already has boxes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import func, select

from desktop_app.ocr.base import Proposal, Word
from desktop_app.ocr.cache import cached_outcome, load_rgb
from desktop_app.ocr.elements import propose, text_inside, text_lines
from desktop_app.ocr.suggested_box import FRAMED, offered
from desktop_app.store import edits
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter

POINT_BOX = 24.0  # px: the box around a point with no element or text under it
MAX_ELEMENT_SHARE = 0.1  # an outline above a tenth of the screen is a panel or a card, not what was clicked
SOURCE = "llm"


@dataclass(frozen=True)
class ModelProposal:
    box: tuple[float, float, float, float]
    text: str
    run_id: int
    kind: str = "model"


@dataclass
class PrelabelReport:
    labelled: int = 0  # steps that got a box from the model
    had_boxes: int = 0  # steps left alone: someone labelled them already
    no_answer: int = 0  # the model gave no usable point
    per_step: dict[int, int] = field(default_factory=dict)  # step id -> box id made

    def summary(self) -> str:
        return (f"{self.labelled} screens pre-labelled; {self.had_boxes} already had boxes (left alone); "
                f"{self.no_answer} without a usable answer")


def proposals_for_step(project: Project, step_id: int, run_ids: list[int]) -> list[ModelProposal]:
    """The runs' answers on this step as boxes (one per run that answered with a point). Without OCR of the
    screen, its elements are found in the pixels alone (about 10-30 ms a screen)."""
    with project.reading() as s:
        step = s.get(m.Step, step_id)
        if step is None or step.screen_id is None:
            return []
        screen = s.get(m.Screen, step.screen_id)
        answers = s.execute(select(m.Prediction.run_id, m.Prediction.x, m.Prediction.y)
                            .where(m.Prediction.step_id == step_id, m.Prediction.run_id.in_(run_ids))
                            .order_by(m.Prediction.run_id)).all()
    points = [(run_id, x, y) for run_id, x, y in answers
              if x is not None and y is not None and 0 <= x <= screen.width and 0 <= y <= screen.height]
    if not points:
        return []
    words, elements = _screen_parts(project, screen)
    out = []
    for run_id, x, y in points:
        box = box_around(x, y, words, elements, screen.width, screen.height)
        out.append(ModelProposal(box, text_inside(box, words), run_id))
    return out


def box_around(x: float, y: float, words: list[Word], elements: list[Proposal], width: int,
               height: int) -> tuple[float, float, float, float]:
    """The element a click at (x, y) lands on: the smallest outlined element around it, else the line of text
    under it, else a POINT_BOX square clipped to the screen."""
    around = [e for e in offered(elements, width, height) if e.kind in FRAMED and _inside(e.box, x, y)
              and _area(e.box) <= MAX_ELEMENT_SHARE * width * height]
    if around:
        return min(around, key=lambda e: _area(e.box)).box
    for line_box, _members in text_lines(words):
        if _inside(line_box, x, y):
            return line_box
    half = POINT_BOX / 2
    return (max(0.0, x - half), max(0.0, y - half), min(float(width), x + half), min(float(height), y + half))


def apply_run(project: Project, run_id: int, flt: EpisodeFilter | None = None, label: str = "gold",
              actor: str | None = None) -> PrelabelReport:
    """Accept a run's proposals as boxes (source "llm", the given label) on the steps of the selection that
    have no box yet; a step someone labelled is never touched."""
    flt = flt or EpisodeFilter()
    report = PrelabelReport()
    with project.reading() as s:
        steps = s.execute(select(m.Step.id).join(m.Episode, m.Episode.id == m.Step.episode_id)
                          .join(m.Prediction, m.Prediction.step_id == m.Step.id)
                          .where(*flt.where(), m.Prediction.run_id == run_id).order_by(m.Step.id)).scalars().all()
        labelled = set(s.execute(select(m.ActionBox.step_id).where(m.ActionBox.step_id.in_(steps))
                                 .group_by(m.ActionBox.step_id).having(func.count() > 0)).scalars())
    for step_id in steps:
        if step_id in labelled:
            report.had_boxes += 1
            continue
        found = proposals_for_step(project, step_id, [run_id])
        if not found:
            report.no_answer += 1
            continue
        x1, y1, x2, y2 = found[0].box
        (box,) = edits.create_boxes(project, step_id, [{"x1": x1, "y1": y1, "x2": x2, "y2": y2, "label": label,
                                                        "element_text": found[0].text, "source": SOURCE,
                                                        "meta": {"prelabel_run": run_id}}], actor)
        report.labelled += 1
        report.per_step[step_id] = box.id
    return report


def _screen_parts(project: Project, screen: m.Screen) -> tuple[list[Word], list[Proposal]]:
    """Words and elements of the screen: OCR's when it has run, else the elements seen in the pixels alone
    (no OCR model is started for pre-labelling)."""
    outcome = cached_outcome(project, screen)
    if outcome is not None:
        return outcome.words, outcome.elements
    try:
        return [], propose(load_rgb(project.image_path(screen)), [])
    except OSError:
        return [], []


def _inside(box, x: float, y: float) -> bool:
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def _area(box) -> float:
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])
