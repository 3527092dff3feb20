"""docs/team-assign.png: the bundled demo's 28 samples given to three annotators, a quarter of them twice;
docs/team-progress.png: their progress after a day's work, and how far they agree on the doubles;
docs/team-adjudication.png: one double-annotated sample, the two versions side by side, two boxes picked;
docs/team-new-server-project.png: File > Open project on a server, creating a project with its images in
the database.

    QT_QPA_PLATFORM=offscreen .venv/bin/python docs/make_team_screenshots.py

The annotators' work is simulated with a fixed seed: the first of each double copies the demo's own boxes,
the second misses one, moves some by a few pixels and now and then picks another label.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["SCREENLAB_CONFIG_DIR"] = tempfile.mkdtemp()  # never save into the user's settings
os.environ["SCREENLAB_DATA_DIR"] = tempfile.mkdtemp()
os.environ["SCREENLAB_USER"] = "Lea"
DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))

from shots import settle, shoot  # noqa: E402
from sqlalchemy import select  # noqa: E402

from desktop_app import api  # noqa: E402
from desktop_app.formats.transfer import import_path  # noqa: E402
from desktop_app.paths import demo_dataset_dir  # noqa: E402
from desktop_app.settings import Settings  # noqa: E402
from desktop_app.store import edits  # noqa: E402
from desktop_app.store.models import ActionBox, Step  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402
from desktop_app.teams import assignment  # noqa: E402
from desktop_app.ui.app import application  # noqa: E402
from desktop_app.ui.server_dialog import EXAMPLE, ServerDialog  # noqa: E402
from desktop_app.ui.team.adjudication_window import AdjudicationWindow  # noqa: E402
from desktop_app.ui.team.assign_dialog import AssignDialog  # noqa: E402
from desktop_app.ui.team.progress_dialog import ProgressDialog  # noqa: E402
from desktop_app.ui.theme import apply_theme  # noqa: E402

TEAM = "Ada, Ben, Chen"
SHOWN = "demo-popup-04"  # the double shown in the adjudication shot, when it is one
LABELS = ("gold", "distracted", "other")


def boxes_of(project: Project, episode_id: int) -> dict[int, list[dict]]:
    """The demo's own boxes of a sample, per step index: what a careful annotator would draw."""
    with project.reading() as s:
        rows = s.execute(select(Step.index, ActionBox).join(ActionBox, ActionBox.step_id == Step.id)
                         .where(Step.episode_id == episode_id, ActionBox.x1.is_not(None))
                         .order_by(Step.index, ActionBox.id)).all()
    out: dict[int, list[dict]] = {}
    for index, b in rows:
        out.setdefault(index, []).append({"x1": b.x1, "y1": b.y1, "x2": b.x2, "y2": b.y2, "label": b.label,
                                          "element_text": b.element_text})
    return out


def step_ids(project: Project, episode_id: int) -> dict[int, int]:
    with project.reading() as s:
        return dict(s.execute(select(Step.index, Step.id).where(Step.episode_id == episode_id)).all())


def sloppy(boxes: list[dict], rng: random.Random) -> list[dict]:
    """A second annotator: misses a box, shifts some a little, sometimes disagrees on the label."""
    kept = list(boxes)
    if len(kept) > 2:
        kept.pop(rng.randrange(len(kept)))
    out = []
    for box in kept:
        dx, dy = rng.uniform(-4, 4), rng.uniform(-4, 4)
        label = box["label"]
        if rng.random() < 0.25:
            label = rng.choice([x for x in LABELS if x != label])
        out.append({**box, "x1": max(box["x1"] + dx, 0), "y1": max(box["y1"] + dy, 0), "x2": box["x2"] + dx,
                    "y2": box["y2"] + dy, "label": label})
    return out


def simulate_work(project: Project) -> None:
    rng = random.Random(7)
    names = [n.strip() for n in TEAM.split(",")]
    doubles: dict[int, list[tuple[str, int]]] = {}
    for who in names:
        for episode in api.queue(project, who):
            if episode.kind == "copy":
                doubles.setdefault(episode.meta["copy_of"], []).append((who, episode.id))
    for sample, copies in sorted(doubles.items()):
        truth = boxes_of(project, sample)
        for n, (who, copy_id) in enumerate(sorted(copies)):
            steps = step_ids(project, copy_id)
            for index, boxes in truth.items():
                edits.create_boxes(project, steps[index], boxes if n == 0 else sloppy(boxes, rng), actor=who)
            assignment.note_work(project, copy_id, rng.uniform(45, 240), edited=True, annotator=who)
            if sample != max(doubles) or n == 0:  # the last double is still being labelled by its second
                api.set_state(project, copy_id, "done", annotator=who)
    pace = {"Ada": 0.9, "Ben": 0.6, "Chen": 0.3}  # share of their own samples each got through
    for who in names:
        own = [e for e in api.queue(project, who) if e.kind == "sample"]
        for i, episode in enumerate(own[:round(pace[who] * len(own))]):
            assignment.note_work(project, episode.id, rng.uniform(30, 200), edited=True, annotator=who)
            if who == "Ben" and i == 0:
                api.set_state(project, episode.id, "skipped", annotator=who, reason="the page did not load")
            else:
                api.set_state(project, episode.id, "done", annotator=who)


def main() -> None:
    app = application()
    apply_theme(app, "light")
    path = Path(tempfile.mkdtemp()) / "team"
    with Project.init(path) as project:
        import_path(project, demo_dataset_dir(), "screenlab")

        dialog = AssignDialog(project, lead="Lea")
        dialog.names.setText(TEAM)
        dialog.overlap.setValue(25.0)
        dialog.show()
        report = dialog.assign()
        assert report is not None and report.double, "the assignment should have gone through"
        dialog.adjustSize()
        shoot(dialog, "team-assign.png")
        dialog.close()

        simulate_work(project)
        progress = ProgressDialog(project)
        progress.resize(1180, 780)
        progress.show()
        shoot(progress, "team-progress.png")
        progress.close()

        window = AdjudicationWindow(project, lead="Lea")
        window.resize(1440, 900)
        window.show()
        settle()
        shown = next((h.episode_id for h in window.heads if h.key == SHOWN), None)
        if shown is not None:
            window.show_sample(shown)
        first, second = window.panes[:2]
        # the lead keeps the first version's gold boxes and the second's other ones: a merge in the making
        picks = [b.id for b in first.view.boxes if b.label == "gold"][:1]
        picks += [b.id for b in second.view.boxes if b.label != "gold"][:1]
        for box_id in picks:
            window.toggle_box(box_id)
        shoot(window, "team-adjudication.png")
        window.close()

    server = ServerDialog(Settings())
    server.url.setText(EXAMPLE)
    server.create.click()
    server.in_database.click()
    server.show()
    shoot(server, "team-new-server-project.png")
    server.close()


if __name__ == "__main__":
    main()
