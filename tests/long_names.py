"""A project whose every name is long: the demo project (screens, trajectories, judge runs, recorded app screens)
plus screenshots named by their SHA-256, episode ids of 64 characters, goals of a paragraph, split and scenario
names, annotators, runs and agents of 64+ characters. What a window shows of it must elide, wrap or scroll;
it must never make the window wider than a laptop's screen (tests/test_gui_window_fits.py, the window-fit
screenshots in docs/)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from PIL import Image, ImageDraw

from desktop_app import api
from desktop_app.agents.profiles import AgentProfile
from desktop_app.demo import ensure_demo_project
from desktop_app.formats.transfer import import_path
from desktop_app.paths import judge_demo_dataset_dir

LONG_SPLIT = "validation-held-out-annotators-second-round-of-the-2025-labelling-campaign"
LONG_SCENARIO = "newsletter-signup-popup-covering-the-checkout-button-after-the-second-scroll"
LONG_ANNOTATOR = "annotator-with-a-long-login-from-the-partner-university-lab-0042"  # 64: the longest allowed
LONG_RUN = "qwen2.5-vl-72b-instruct-awq, point prompts, temperature 0.0, the second retry of the overnight batch"
LONG_AGENT = "center-baseline-agent-with-a-descriptive-name-that-nobody-would-shorten"
LONG_JUDGE = "gpt-4o-2024-08-06 as judge, last three frames, reasoning first, strict success criteria (v3)"
LONG_GOAL = ("Find the stainless steel insulated water bottle with the bamboo lid in the 750 ml size, add two of "
             "them to the cart, apply the newsletter discount code if the shop offers one, and stop before paying "
             "so that the user can check the delivery date themselves")


def sha_name(i: int) -> str:
    return hashlib.sha256(f"long-names screen {i}".encode()).hexdigest()


def long_names_project(root: Path, screens: int = 4, first_start: Path | None = None) -> Path:
    """The project folder (made under `root`): the demo project with long-named additions."""
    if first_start is None:
        folder = ensure_demo_project(root)
    else:  # a copy of a first-start demo project already built (the suite's first_start_template)
        folder = root / first_start.name
        shutil.copytree(first_start, folder)
    data = root / "long-data"
    lines = []
    for i in range(screens):
        name = f"{sha_name(i)}.png"
        image = Image.new("RGB", (1280, 800), (236, 240, 244))
        draw = ImageDraw.Draw(image)
        draw.rectangle((900, 40, 1200, 120), fill=(30, 120, 200))
        (data / "images").mkdir(parents=True, exist_ok=True)
        image.save(data / "images" / name)
        lines.append({"id": sha_name(i), "goal": f"{LONG_GOAL} ({i})", "scenario": LONG_SCENARIO,
                      "split": LONG_SPLIT, "steps": [{"image": f"images/{name}", "actions": [
                          {"label": "gold", "box": [900, 40, 1200, 120],
                           "element_text": "Add to cart and continue to the checkout page with this discount"}]}]})
    (data / "episodes.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    with api.open_project(folder, user=LONG_ANNOTATOR) as project:
        import_path(project, data, "screenlab")
        first = api.trajectories(project)[:3]
        for row in first:  # a long name among the annotators of the agreement view
            api.label_trajectory(project, row.episode_id, LONG_ANNOTATOR, "success")
        api.import_judge_verdicts(project, judge_demo_dataset_dir() / "verdicts" / "last-action.jsonl", LONG_JUDGE)
        agent = AgentProfile(name=LONG_AGENT, kind="center", convention="point-px")
        run_id = api.create_run(project, agent, api.where(scenarios=(LONG_SCENARIO, "popup")), name=LONG_RUN)
        api.execute_run(project, run_id)
        mine = api.where(scenarios=(LONG_SCENARIO,))
        api.assign(project, [LONG_ANNOTATOR], mine)
        for episode in api.queue(project, LONG_ANNOTATOR):  # "Changed by <long name>" in the list's filter
            step = _first_step(project, episode.id)
            shown = api.screen(project, step)
            box = shown.boxes[0]
            api.edit_boxes(project, {box.id: {"label": "other"}}, actor=LONG_ANNOTATOR,
                           expected_version=shown.version)
            break
    return folder


def _first_step(project, episode_id: int) -> int:
    from sqlalchemy import select

    from desktop_app.store.models import Step

    with project.reading() as s:
        return s.execute(select(Step.id).where(Step.episode_id == episode_id).order_by(Step.index)).scalars().first()
