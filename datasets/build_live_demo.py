"""Rebuild datasets/live_demo: two tasks recorded in a real browser on our `account` flow site, and a live run
of a scripted agent on them, for the demo project (desktop_app/demo.py imports both).

    .venv/bin/python datasets/build_live_demo.py

Made once here, at development time, because a recording and a live run need Chromium and the demo is built
at the user's first start, which must not (ADR 0051, amended). On a scratch project:

- the two tasks are recorded through the recorder's own capture path, headless, with Playwright's input
  (as tests/test_record.py does): signing in (the password is masked in the screenshot and never stored) and
  saving a profile; both accepted, as a person verifying them would;
- a scripted agent answers through the local OpenAI-compatible test server (tests/openai_server.py) in the
  point-px convention: it signs in (the e-mail, then Sign in), which succeeds in 2 steps; on the profile it types
  the name, picks the country and says it has finished without pressing Save, which fails on step 3;
- the tasks are exported as ScreenLab JSONL (screenshots, trees, meta.record with the evaluator) into
  live_demo/tasks/, the run as a run folder (runs/run_transfer.py: its row, its answers and its trajectories)
  into live_demo/run/.

Nothing of the user's is touched (settings and data go to temporary folders).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
os.environ["SCREENLAB_CONFIG_DIR"] = tempfile.mkdtemp()  # the scripted agent's profile is not saved for the user
os.environ["SCREENLAB_DATA_DIR"] = tempfile.mkdtemp()
sys.path[:0] = [str(ROOT.parent), str(ROOT.parent / "tests")]

from sqlalchemy import select  # noqa: E402

from desktop_app import api  # noqa: E402
from desktop_app.record.tasks import record_task  # noqa: E402
from desktop_app.store import models as m  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402

from openai_server import FakeOpenAI, Response, user_text  # noqa: E402

OUT = ROOT / "live_demo"
SIGN_IN = "Sign in as alex@example.com"
SAVE = "Save the profile name Alex Morgan, country Spain"
RUN_NAME = "scripted agent · live (demo)"


def record(project: Project) -> dict:
    """The two tasks, accepted; where the agent will act: the recorded elements' centres."""
    ids = [record_task(project, "flow:account", SIGN_IN, actions=[
               lambda p: p.fill("#email", "alex@example.com"), lambda p: p.fill("#password", "pw-123456"),
               lambda p: p.click("#signin")]),
           record_task(project, "flow:account/profile", SAVE, actions=[
               lambda p: p.fill("#name", "Alex Morgan"), lambda p: p.select_option("#country", "es"),
               lambda p: p.click("#save")])]
    for episode_id in ids:
        api.decide_review(project, episode_id, "accept")
    at = {}
    with project.reading() as s:
        for goal, index, box in s.execute(
                select(m.Episode.goal, m.Step.index, m.ActionBox).join(m.Step, m.Step.episode_id == m.Episode.id)
                .join(m.ActionBox, m.ActionBox.step_id == m.Step.id).where(m.ActionBox.label == "gold")):
            at[(goal, index)] = [round((box.x1 + box.x2) / 2), round((box.y1 + box.y2) / 2)]
    return at


def agent(at: dict):
    """Signs in well; on the profile stops before saving (a premature "finished", a failure judges should see)."""
    plans = {SIGN_IN: [{"action_type": "type", "point": at[(SIGN_IN, 0)], "text": "alex@example.com"},
                       {"action_type": "click", "point": at[(SIGN_IN, 2)]}],
             SAVE: [{"action_type": "type", "point": at[(SAVE, 0)], "text": "Alex Morgan"},
                    {"action_type": "select", "point": at[(SAVE, 1)], "text": "Spain"},
                    {"action_type": "finished"}]}

    def respond(body, n):
        said = user_text(body)
        plan = plans[re.search(r"^Task: (.*)$", said, re.M).group(1).strip()]
        done = len(re.findall(r"^- Step \d+:", said, re.M))
        return Response(text=json.dumps(plan[min(done, len(plan) - 1)]))

    return respond


def main() -> None:
    scratch = Path(tempfile.mkdtemp(prefix="live-demo-"))
    try:
        with Project.init(scratch / "project") as project:
            at = record(project)
            with FakeOpenAI(agent(at)) as server:
                profile = api.agent(name="scripted agent", base_url=server.base_url, model="scripted",
                                    convention="point-px")
                run_id, _ = api.run(project, profile, {"scenarios": ["recorded"]}, "live", name=RUN_NAME,
                                    max_steps=6)
            for line in api.evaluate(project, [run_id])["runs"][run_id]["metrics"]["per_episode"]:
                print(f"  {line['goal']}: {'success' if line['success'] else 'failure'} in {line['steps']} steps "
                      f"{line['failure']}")
            built = scratch / "live_demo"
            built.mkdir()
            api.export_data(project, built / "tasks", "screenlab", {"scenarios": ["recorded"]})
            api.export_run(project, run_id, built / "run")
        _blank_machine_details(built / "run" / "run.json")
        if OUT.exists():
            shutil.rmtree(OUT)
        shutil.copytree(built, OUT)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    size = sum(p.stat().st_size for p in OUT.rglob("*") if p.is_file())
    print(f"wrote {OUT} ({size / 1e6:.2f} MB)")


def _blank_machine_details(path: Path) -> None:
    """The test server's address changes with every build and answers nowhere later: not kept."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data["profile"]["base_url"] = ""
    data["profile"]["params"]["base_url"] = ""
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
