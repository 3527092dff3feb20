"""Live runs (issue 37, item 3): a scripted agent, asked through the real openai client against the local
OpenAI-compatible test server, does three tasks recorded on the `account` flow site in real Chromium; its
answers are done in the page, the tasks' evaluators decide success, and every step is kept as a trajectory."""

from __future__ import annotations

import base64
import io
import json
import re
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from PIL import Image
from sqlalchemy import select, update

from desktop_app import api
from desktop_app.cli.main import main
from desktop_app.record.tasks import record_task
from desktop_app.runs.protocols import OptionsError
from desktop_app.store import models as m
from desktop_app.store.project import Project

from openai_server import FakeOpenAI, Response, user_text

SIGN_IN = "Sign in as alex@example.com"
SAVE = "Save the profile name Alex Morgan, country Spain"
EDIT = "Go from the saved profile back to editing it"


def centre(box) -> list[int]:
    return [round((box.x1 + box.x2) / 2), round((box.y1 + box.y2) / 2)]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """Three recorded tasks, accepted, and where the scripted agent acts: the recorded elements' centres."""
    path = tmp_path_factory.mktemp("live") / "project"
    with Project.init(path) as project:
        ids = [record_task(project, "flow:account", SIGN_IN, actions=[
                   lambda p: p.fill("#email", "alex@example.com"), lambda p: p.fill("#password", "pw-123456"),
                   lambda p: p.click("#signin")]),
               record_task(project, "flow:account/profile", SAVE, actions=[
                   lambda p: p.fill("#name", "Alex Morgan"), lambda p: p.select_option("#country", "es"),
                   lambda p: p.click("#save")]),
               record_task(project, "flow:account/saved", EDIT, actions=[lambda p: p.click("#back-to-profile")])]
        for episode_id in ids:
            api.decide_review(project, episode_id, "accept")  # a recording waits for review like any new sample
        boxes = {}
        with project.reading() as s:
            for goal, index, box in s.execute(
                    select(m.Episode.goal, m.Step.index, m.ActionBox).join(m.Step, m.Step.episode_id == m.Episode.id)
                    .join(m.ActionBox, m.ActionBox.step_id == m.Step.id)):
                if box.label == "gold":
                    boxes[(goal, index)] = centre(box)
                elif goal == EDIT and box.element_text == "Help":
                    boxes[(EDIT, "help")] = centre(box)
    return path, ids, boxes


def scripted(boxes: dict):
    """Signs in (the e-mail, then Sign in: no password needed by the site), saves the profile in three steps,
    and on the third task clicks Help and says it has finished, which is wrong."""
    plans = {
        SIGN_IN: [{"action_type": "type", "point": boxes[(SIGN_IN, 0)], "text": "alex@example.com"},
                  {"action_type": "click", "point": boxes[(SIGN_IN, 2)]}],
        SAVE: [{"action_type": "type", "point": boxes[(SAVE, 0)], "text": "Alex Morgan"},
               {"action_type": "select", "point": boxes[(SAVE, 1)], "text": "Spain"},
               {"action_type": "click", "point": boxes[(SAVE, 2)]}],
        EDIT: [{"action_type": "click", "point": boxes[(EDIT, "help")]}, {"action_type": "finished"}],
    }

    def respond(body, n):
        said = user_text(body)
        goal = re.search(r"^Task: (.*)$", said, re.M).group(1).strip()
        done = len(re.findall(r"^- Step \d+:", said, re.M))
        plan = plans[goal]
        return Response(text=json.dumps(plan[min(done, len(plan) - 1)]))

    return respond


def test_a_scripted_agent_succeeds_on_two_tasks_and_the_failed_one_names_its_step(recorded, monkeypatch, capsys,
                                                                                  tmp_path):
    path, ids, boxes = recorded
    monkeypatch.setenv("SCREENLAB_TEST_KEY", "sk-test")
    with FakeOpenAI(scripted(boxes)) as server:
        assert main(["agents", "add", "scripted", "--base-url", server.base_url, "--model", "m", "--convention",
                     "point-px", "--api-key-env", "SCREENLAB_TEST_KEY", "--replace"]) == 0
        capsys.readouterr()
        assert main(["run", str(path), "--agent", "scripted", "--protocol", "live", "--where", "scenario=recorded",
                     "--observation", "list", "--max-steps", "6"]) == 0
        out = capsys.readouterr().out
        assert "live protocol (chosen), 3 samples in 3 units" in out
        assert "failure 1" in out and "success 2" in out
        assert len(server.requests) == 2 + 3 + 2  # one answer per step, none after a task ended
        first = user_text(server.requests[0])
        assert "live web page, now at http://screenlab.invalid/site/account/" in first
        assert "The elements you can act on:" in first  # the list observation, as the capability probes show it
        asked = [r for r in server.requests if SAVE in user_text(r)]
        assert "- Step 2: chose 'Spain' in 'Country'" in user_text(asked[-1])  # its own actions, in words

        with Project.open(path) as project:
            run_id = api.runs(project)[-1].id
            status_before = len(server.requests)
            again = api.execute_run(project, run_id)  # resumed: every task is done, nothing is asked
            assert again.skipped == 3 and len(server.requests) == status_before

            metrics = api.evaluate(project, [run_id])["runs"][run_id]["metrics"]
            assert metrics["rates"]["success"]["hits"] == 2 and metrics["rates"]["success"]["n"] == 3
            assert metrics["steps_to_success"]["mean"] == 2.5 and metrics["steps_to_success"]["max"] == 3
            by_goal = {t["goal"]: t for t in metrics["per_episode"]}
            assert by_goal[SIGN_IN]["steps"] == 2 and by_goal[SAVE]["steps"] == 3
            failure = by_goal[EDIT]["failure"]
            assert failure.startswith("step 2: stopped on /site/account/saved")
            assert "(step 1: clicked 'Help' at " in failure
            assert "; failed check: the URL matches /site/account/profile (it is /site/account/saved" in failure

            # each task is one trajectory: a step per answer (the screen seen, the answer as the run's
            # prediction), and the page a passed task ended on; judges can label and judge them
            trajectories = {t.intent: t for t in api.trajectories(project)}
            assert set(trajectories) == {SIGN_IN, SAVE, EDIT}
            sign_in = api.trajectory(project, trajectories[SIGN_IN].episode_id)
            assert [s.action.kind for s in sign_in.steps] == ["type", "click", "stop"]
            assert sign_in.steps[0].action.text == "type [alex@example.com] at [Email]"
            assert sign_in.steps[1].action.text == "click at [Sign in]"
            x, y = sign_in.steps[1].action.points[0]
            assert (round(x * 1280), round(y * 800)) == tuple(boxes[(SIGN_IN, 2)])  # drawn where it clicked
            edit = api.trajectory(project, trajectories[EDIT].episode_id)
            assert [s.action.kind for s in edit.steps] == ["click", "stop"]  # it stopped itself: no extra frame
            with project.reading() as s:
                rows = s.execute(select(m.Prediction, m.Step).join(m.Step, m.Step.id == m.Prediction.step_id)
                                 .where(m.Prediction.run_id == run_id, m.Step.episode_id == sign_in.episode_id)
                                 .order_by(m.Step.index)).all()
                screens = [s.get(m.Screen, step.screen_id) for step in
                           s.execute(select(m.Step).where(m.Step.episode_id == sign_in.episode_id)
                                     .order_by(m.Step.index)).scalars()]
            assert [json.loads(p.raw_text)["action_type"] for p, _ in rows] == ["type", "click"]
            assert [(p.x, p.y) for p, _ in rows] == [tuple(boxes[(SIGN_IN, 0)]), tuple(boxes[(SIGN_IN, 2)])]
            assert [p.verdict for p, _ in rows] == ["", "gold"]
            assert [sc.source for sc in screens] == ["http://screenlab.invalid/site/account/signin"] * 2 + [
                "http://screenlab.invalid/site/account/profile"]
            assert all((sc.width, sc.height) == (1280, 800) for sc in screens)
            with pytest.raises(ValueError, match="live run: its trajectories were stored as it ran"):
                api.trajectories_from_run(project, run_id)

            report = api.write_report(project, tmp_path / "report", plots=False)
            summary = next(p for p in report if p.name == "summary.md").read_text(encoding="utf-8")
        capsys.readouterr()
        assert main(["eval", str(path), "--run", str(run_id)]) == 0
        shown = capsys.readouterr().out
    for text in (shown, summary):
        assert re.search(r"SR\s+66\.7 % \[\d+\.\d, \d+\.\d\]\s+\(2/3\)", text), text
        assert "steps        2.5 to success (median 2.5, 2-3, 2 tasks; cap 6, list)" in text
        assert f"failed       {EDIT!r}\n" in text
        assert re.search(r"\n {14,}step 2: stopped on /site/account/saved#? \(step 1: clicked 'Help' at \(\d+, \d+\)\)\n"
                         r" {14,}failed check: the URL matches /site/account/profile", text), text


def test_tasks_on_the_web_run_only_when_allowed_and_other_samples_are_left_out_with_the_reason(recorded):
    path, ids, _ = recorded
    with Project.open(path) as project:
        with project.transaction() as s:
            episode = s.get(m.Episode, ids[2])
            meta = json.loads(json.dumps(episode.meta))
            meta["record"]["start"] = "https://example.com/account"
            s.execute(update(m.Episode).where(m.Episode.id == ids[2]).values(meta=meta))
        try:
            plan = api.plan_run(project, {"ids": ids}, "live")
            assert plan.units == 2 and plan.excluded == {"starts on the web (allow_web is off)": 1}
            assert api.plan_run(project, {"ids": ids}, "live", allow_web=True).units == 3
        finally:
            with project.transaction() as s:
                meta["record"]["start"] = "flow:account/saved"
                s.execute(update(m.Episode).where(m.Episode.id == ids[2]).values(meta=meta))
        with pytest.raises(OptionsError, match="max_steps is a whole number from 1 to 200"):
            api.create_run(project, "random", {"ids": ids}, "live", max_steps=0)
        with pytest.raises(OptionsError, match="reads stored screens"):
            api.create_run(project, "ocr-match", {"ids": ids}, "live")


class _Counting(BaseHTTPRequestHandler):
    hits: list = []

    def do_GET(self):
        _Counting.hits.append(self.path)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_a_live_run_on_a_saved_page_sends_no_request_off_the_machine(tmp_path, monkeypatch):
    """The page asks for style, scripts, a beacon, a WebSocket and a STUN server on 127.0.0.1 (standing for the
    web): none of it arrives; only the agent's questions reach the model's server."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.settimeout(0.5)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    _Counting.hits = []
    folder = tmp_path / "saved"
    folder.mkdir()
    beacon = (f'<script>fetch("{url}/beacon").catch(() => null); try {{ new WebSocket("ws://127.0.0.1:'
              f'{server.server_address[1]}/ws") }} catch (e) {{}}; try {{ const pc = new RTCPeerConnection('
              f'{{iceServers: [{{urls: "stun:127.0.0.1:{udp.getsockname()[1]}"}}]}}); pc.createDataChannel("x"); '
              f'pc.createOffer().then(o => pc.setLocalDescription(o)) }} catch (e) {{}}</script>')
    (folder / "index.html").write_text(
        f'<!doctype html><html><head><link rel="stylesheet" href="{url}/site.css"><script src="{url}/t.js"></script>'
        f'{beacon}</head><body><h1>Start</h1><img src="{url}/a.png">'
        '<a id="next" href="done.html" style="display:block;width:200px;height:60px">Next</a></body></html>',
        encoding="utf-8")
    (folder / "done.html").write_text(f'<!doctype html><h1>Done</h1><img src="{url}/b.png">{beacon}',
                                      encoding="utf-8")
    monkeypatch.setenv("SCREENLAB_TEST_KEY", "sk-test")
    try:
        with Project.init(tmp_path / "p") as project:
            episode_id = record_task(project, str(folder), "Go to the next page",
                                     actions=[lambda p: p.click("#next")])
            api.decide_review(project, episode_id, "accept")
            with project.reading() as s:
                gold = s.execute(select(m.ActionBox).join(m.Step).where(m.Step.episode_id == episode_id,
                                                                         m.ActionBox.label == "gold")).scalar_one()
            click = json.dumps({"action_type": "click", "point": centre(gold)})
            with FakeOpenAI(lambda body, n: Response(text=click)) as model:
                agent = api.agent(name="scripted", base_url=model.base_url, model="m", convention="point-px",
                                  api_key_env="SCREENLAB_TEST_KEY")
                run_id, status = api.run(project, agent, {"ids": [episode_id]}, "live", max_steps=3,
                                         observation="marks")
            assert status.verdicts == {"success": 1} and len(model.requests) == 1
            metrics = api.evaluate(project, [run_id])["runs"][run_id]["metrics"]
            # marks: the agent saw the screenshot with numbered dots; the trajectory keeps the screenshot itself
            sent = next(part["image_url"]["url"] for part in model.requests[0]["messages"][-1]["content"]
                        if part["type"] == "image_url")
            first = api.trajectory(project, metrics["per_episode"][0]["trajectory"]).steps[0]
            stored = project.media.read(first.sha256, first.ext)
            assert base64.b64decode(sent.split(",", 1)[1]) != stored
            assert Image.open(io.BytesIO(stored)).size == (1280, 800)
        time.sleep(1.0)  # a WebSocket or STUN packet would have arrived by now
        with pytest.raises(socket.timeout):
            udp.recvfrom(2048)
    finally:
        server.shutdown()
        udp.close()
    assert _Counting.hits == []
    assert metrics["rates"]["success"]["rate"] == 1.0 and metrics["blocked_requests"] >= 4  # asked, and refused


def test_a_text_answer_names_the_element_and_an_agents_key_is_pressed_as_the_browser_names_it():
    from desktop_app.record.live_page import element_named, key_name

    elements = [{"text": "Sign in", "box": [10, 10, 90, 30]}, {"text": "Sign in with a passkey", "box": [0, 40, 90, 60]},
                {"text": "Email", "box": [10, 70, 200, 90]}, {"text": "Hidden", "box": None}]
    assert element_named("  sign IN ", elements)["box"] == [10, 10, 90, 30]  # the same text before a longer one
    assert element_named("passkey", elements)["text"] == "Sign in with a passkey"  # the text that holds it
    assert element_named("Input Email", elements)["text"] == "Email"  # json-text's "Input <field>"
    assert element_named("Hidden", elements) is None and element_named("Cancel", elements) is None
    assert [key_name(k) for k in ("enter", "ctrl+a", "Escape", "pagedown", "a")] == [
        "Enter", "Control+a", "Escape", "PageDown", "a"]


def test_with_the_tree_observation_the_agent_is_sent_the_live_pages_tree(recorded, monkeypatch):
    """--observation tree: each request holds the text of the page's tree as it is then (the saved page's
    button, by its text), as the capability probes show a recorded screen's."""
    path, ids, boxes = recorded
    monkeypatch.setenv("SCREENLAB_TEST_KEY", "sk-test")
    click = json.dumps({"action_type": "click", "point": boxes[(EDIT, 0)]})
    with Project.open(path) as project:
        with project.reading() as s:
            acted = s.execute(select(m.ActionBox.element_text).join(m.Step).where(
                m.Step.episode_id == ids[2], m.Step.index == 0, m.ActionBox.label == "gold")).scalar_one()
        with FakeOpenAI(lambda body, n: Response(text=click)) as server:
            agent = api.agent(name="scripted", base_url=server.base_url, model="m", convention="point-px",
                              api_key_env="SCREENLAB_TEST_KEY")
            run_id, status = api.run(project, agent, {"ids": [ids[2]]}, "live", max_steps=2, observation="tree")
    assert status.verdicts == {"success": 1} and len(server.requests) == 1
    said = user_text(server.requests[0])
    assert "live web page, now at http://screenlab.invalid/site/account/saved" in said
    tree = said.split("The page's accessibility tree:\n", 1)[1].split("\n\n", 1)[0]
    # the page's nodes as the probes write them: the heading, and the link the agent then pressed, numbered
    assert 'TextView "Profile saved"' in tree
    assert re.search(rf'\[\d+\] TextView "{re.escape(acted)}", id back_to_profile; can click', tree), tree
    assert "The elements you can act on:" not in said  # the tree, not the list


def test_screenlab_run_takes_the_browser_chosen_in_settings(recorded, monkeypatch, capsys, tmp_path):
    """As the New run dialog does (tests/test_gui_live_runs.py): with no browser to be found before it, the one
    of Settings > LLM & browser is launched, and the run keeps it among its options."""
    from desktop_app.render.browser import find_browser
    from desktop_app.render.renderer import _playwright
    from desktop_app.settings import load_settings, save_settings

    path, ids, boxes = recorded
    launched, chosen = tmp_path / "launched", tmp_path / "chosen" / "my-chromium"
    chosen.parent.mkdir()
    chosen.write_text(f'#!/bin/sh\necho started > "{launched}"\nPATH=/usr/local/bin:/usr/bin:/bin\nexport PATH\n'
                      f'exec "{find_browser(_playwright())}" "$@"\n', encoding="utf-8")
    chosen.chmod(0o755)
    settings = load_settings()
    settings.browser_path = str(chosen)
    save_settings(settings)
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("SCREENLAB_TEST_KEY", "sk-test")
    click = json.dumps({"action_type": "click", "point": boxes[(EDIT, 0)]})
    with FakeOpenAI(lambda body, n: Response(text=click)) as server:
        assert main(["agents", "add", "scripted", "--base-url", server.base_url, "--model", "m", "--convention",
                     "point-px", "--api-key-env", "SCREENLAB_TEST_KEY", "--replace"]) == 0
        assert main(["run", str(path), "--agent", "scripted", "--protocol", "live", "--where", f"id={ids[2]}",
                     "--max-steps", "2"]) == 0
    assert "success 1" in capsys.readouterr().out
    assert launched.read_text().strip() == "started"
    with Project.open(path) as project:
        assert api.runs(project)[-1].options["browser"] == str(chosen)
