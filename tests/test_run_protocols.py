"""Every protocol starts, cancels, resumes and fails cleanly from the command line and the Python API,
through the real openai client against the local fake server; what reaches the server is checked
byte for byte; samples that cannot be scored are left out and counted."""

from __future__ import annotations

import json
import os
import re
import signal
import threading
from collections import Counter

import pytest
from sqlalchemy import select

from desktop_app import api
from desktop_app.agents.conventions import get_convention
from desktop_app.cli.main import main
from desktop_app.formats.transfer import import_path
from desktop_app.paths import demo_dataset_dir
from desktop_app.runs.state import RunState
from desktop_app.store import models as m
from desktop_app.store.project import Project

from conftest import SHOE_BOXES, make_image, write_shoe_episodes
from openai_server import FakeOpenAI, Response, user_text

TASK = re.compile(r"Task: (.*)")


def click_centre(i: int) -> Response:
    x1, y1, x2, y2 = SHOE_BOXES[i]
    return Response(text=json.dumps({"action_type": "click", "point": [(x1 + x2) / 2, (y1 + y2) / 2]}))


def shoe_step(body) -> int:
    """Which step of a shoe episode a request is about: the history lists the earlier ones."""
    return len(re.findall(r"Step \d+:", user_text(body)))


@pytest.fixture
def shoes(tmp_path):
    path = tmp_path / "shoes"
    with Project.init(path) as project:
        import_path(project, write_shoe_episodes(tmp_path / "shoe-data"), "screenlab")
    return path


def add_agent(server, name="local", key_env="SCREENLAB_TEST_KEY"):
    assert main(["agents", "add", name, "--base-url", server.base_url, "--model", "m", "--convention", "point-px",
                 "--api-key-env", key_env, "--concurrency", "2"]) == 0


def interrupt_after(n: int, respond):
    """A responder that presses Ctrl+C (SIGINT to this process) once n requests have arrived."""
    lock, seen = threading.Lock(), Counter()

    def wrapped(body, index):
        with lock:
            seen["n"] += 1
            if seen["n"] == n:
                os.kill(os.getpid(), signal.SIGINT)
        return respond(body, index)

    return wrapped


def run_row(path, run_id) -> m.Run:
    with Project.open(path) as project, project.reading() as s:
        return s.get(m.Run, run_id)


def eval_json(path, capsys, *extra) -> dict:
    capsys.readouterr()
    assert main(["eval", str(path), "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_screen_run_stops_on_ctrl_c_resumes_and_fails_without_a_key(demo_copy, capsys, monkeypatch):
    demo = demo_copy
    monkeypatch.setenv("SCREENLAB_TEST_KEY", "sk-test")
    answer = Response(text='{"action_type": "click", "point": [640, 400]}', delay=0.05)
    before = signal.getsignal(signal.SIGINT)
    with FakeOpenAI(interrupt_after(6, lambda body, n: answer)) as server:
        add_agent(server)
        code = main(["run", str(demo), "--agent", "local"])
        out = capsys.readouterr().out
        assert code == 130 and "stopped; continue with" in out and "screen protocol (suggested" in out
        assert signal.getsignal(signal.SIGINT) is before  # Ctrl+C works as before once the command is over
        first = run_row(demo, 1)
        assert first.status == RunState.CANCELLED and first.samples == 24
        asked = [TASK.search(user_text(b)).group(1) for b in server.requests]
        with Project.open(demo) as project, project.reading() as s:
            finished = set(s.execute(select(m.Episode.goal).join(m.Step).join(
                m.Prediction, m.Prediction.step_id == m.Step.id)).scalars())
        assert 0 < len(finished) < 24  # answers in flight when Ctrl+C came are dropped, asked again

        assert main(["run", str(demo), "--resume", "1"]) == 0
        resumed = capsys.readouterr().out
        again = [TASK.search(user_text(b)).group(1) for b in server.requests[len(asked):]]
    # nothing asked twice: an answer that had arrived (and was kept in the response cache) as Ctrl+C dropped it
    # is taken from the cache on resume, not bought again; the resumed run's line counts them
    cached = int(re.search(r"(\d+) from cache", resumed).group(1))
    assert not finished & set(again) and len(finished) + len(again) + cached == 24
    assert f"{len(again) + cached} answered, {len(finished)} already done" in resumed
    assert run_row(demo, 1).status == RunState.DONE and run_row(demo, 1).executions == 2

    # a missing key: the run is marked failed with the reason (not left "running"), the CLI says how to go on
    monkeypatch.delenv("SCREENLAB_TEST_KEY")
    capsys.readouterr()
    assert main(["run", str(demo), "--agent", "local", "--where", "scenario=chat"]) == 2
    err = capsys.readouterr().err
    assert "SCREENLAB_TEST_KEY" in err and "--resume 2" in err
    failed = run_row(demo, 2)
    assert failed.status == RunState.FAILED and "SCREENLAB_TEST_KEY is not set" in failed.failure
    report = eval_json(demo, capsys)["runs"]["2"]
    assert report["status"] == "failed" and "SCREENLAB_TEST_KEY" in report["failure"]
    assert report["metrics"]["screenlab"]["overall"]["acc_gold"] is None  # nothing scored: no rate, not 0 %
    capsys.readouterr()
    assert main(["eval", str(demo), "--run", "2"]) == 0
    text = capsys.readouterr().out
    assert "[screen, failed]" in text and "failure: local: environment variable SCREENLAB_TEST_KEY" in text
    assert " 0.0 " not in text  # no rate of a run that scored nothing


def test_cli_episode_run_stops_resumes_whole_episodes_and_fails_without_a_key(shoes, capsys, monkeypatch):
    monkeypatch.setenv("SCREENLAB_TEST_KEY", "sk-test")

    def respond(body, n):
        return Response(text=click_centre(shoe_step(body)).text, delay=0.05)

    with FakeOpenAI(interrupt_after(2, respond)) as server:
        add_agent(server)
        code = main(["run", str(shoes), "--agent", "local", "--no-ask", "--concurrency", "1"])
        out = capsys.readouterr().out
        assert code == 130 and "episode protocol (suggested by the samples), 6 samples in 2 units" in out
        run = run_row(shoes, 1)
        assert run.status == RunState.CANCELLED and run.options == {"allow_ask": False}
        assert main(["run", str(shoes), "--resume", "1"]) == 0
    assert run_row(shoes, 1).status == RunState.DONE
    metrics = eval_json(shoes, capsys)["runs"]["1"]["metrics"]
    assert (metrics["episodes"], metrics["ssr"], metrics["sr"], metrics["allow_ask"]) == (2, 1.0, 1.0, False)

    monkeypatch.delenv("SCREENLAB_TEST_KEY")
    capsys.readouterr()
    assert main(["run", str(shoes), "--agent", "local", "--protocol", "episode"]) == 2
    assert "SCREENLAB_TEST_KEY" in capsys.readouterr().err
    assert run_row(shoes, 2).status == RunState.FAILED
    capsys.readouterr()
    assert main(["eval", str(shoes), "--run", "2"]) == 0
    assert "[episode, failed]" in capsys.readouterr().out


def test_unscoreable_samples_are_left_out_counted_and_kept_on_request(tmp_path, capsys, monkeypatch):
    """Screens with no goal and no labels were sent as 'Task: \\nWhat is the next action?' and scored invalid."""
    monkeypatch.setenv("SCREENLAB_TEST_KEY", "sk-test")
    for i in range(3):
        make_image(tmp_path / "shots" / f"s{i}.png", size=(320, 200), color=(10 * i, 20, 30))
    path = tmp_path / "p"
    with Project.init(path) as project:
        import_path(project, demo_dataset_dir(), "screenlab")
        import_path(project, tmp_path / "shots", "images")
    with FakeOpenAI(lambda body, n: Response(text='{"action_type": "click", "point": [5, 5]}')) as server:
        add_agent(server)
        assert main(["run", str(path), "--agent", "local"]) == 0
        out = capsys.readouterr().out
        assert "24 samples in 24 units" in out and "3 samples left out: 3 no goal" in out
        assert all(TASK.search(user_text(b)).group(1).strip() for b in server.requests)  # never an empty task
        assert len(server.requests) == 24
        assert main(["run", str(path), "--agent", "local", "--include-unlabelled", "--no-cache"]) == 0
        assert len(server.requests) == 24 + 27
    with Project.open(path) as project:
        plan = api.plan_run(project)
        assert (plan.steps, plan.excluded) == (24, {"no goal": 3})
        assert api.runs(project)[0].excluded == 3 and api.runs(project)[1].excluded == 0


def test_the_request_body_keeps_the_template_line_breaks(shoes, monkeypatch):
    """The step prompt used to glue the goal and the step: 'Task: ...Current step: Tap Send'."""
    with FakeOpenAI(lambda body, n: click_centre(shoe_step(body))) as server, Project.open(shoes) as project:
        agent = api.agent(name="local", base_url=server.base_url, model="m", convention="point-px", concurrency=1)
        api.run(project, agent, protocol="screen", where={"text": "shoes-0"})
        texts = sorted(b["messages"][1]["content"][0]["text"] for b in server.requests)
        assert texts[0] == "Task: Order the blue shoes\nCurrent step: Tap button 1\n\nWhat is the next action?"
        server.requests.clear()
        api.run(project, agent, protocol="episode", where={"text": "shoes-0"}, allow_ask=False)
        texts = [b["messages"][1]["content"][0]["text"] for b in server.requests]
        assert texts[2] == ("Task: Order the blue shoes\nEarlier in this task:\n- Step 1: Tap button 1\n"
                            "- Step 2: Tap button 2\n\nWhat is the next action?")
        assert server.requests[0]["messages"][0]["content"].endswith(
            "\n\n" + get_convention("point-px").instruction)


def test_api_failures_leave_no_run_running(shoes, monkeypatch):
    monkeypatch.delenv("SCREENLAB_NOT_SET", raising=False)
    with Project.open(shoes) as project:
        keyless = api.agent(name="keyless", base_url="http://127.0.0.1:9/v1", model="m",
                            api_key_env="SCREENLAB_NOT_SET")
        run_id = api.create_run(project, keyless)
        with pytest.raises(api.ProfileError, match="SCREENLAB_NOT_SET"):
            api.execute_run(project, run_id)
        (run,) = api.runs(project)
        assert (run.protocol, run.status) == ("episode", "failed") and "SCREENLAB_NOT_SET" in run.failure
        with pytest.raises(ValueError, match="no option.*allow_asking"):
            api.create_run(project, keyless, protocol="episode", allow_asking=False)
        with pytest.raises(ValueError, match="unknown protocol"):
            api.create_run(project, keyless, protocol="episodes")
        with pytest.raises(ValueError, match="no run 99"):
            api.evaluate(project, [99])


def test_the_registry_names_each_protocol_by_its_own_name_and_makes_it_once():
    """The registry imports a protocol's module on first use (issue 36): its table of where each lives must
    agree with the classes, in the order the New run dialog lists them."""
    import subprocess
    import sys

    from desktop_app.runs.protocols import PROTOCOLS

    assert list(PROTOCOLS) == ["screen", "episode", "judge", "grounding", "completion", "replay", "probe",
                               "focused", "browse", "live"]
    assert all(PROTOCOLS[name].name == name for name in PROTOCOLS)
    assert PROTOCOLS["screen"] is PROTOCOLS["screen"]
    assert "nonsense" not in PROTOCOLS
    # a fresh process that asks for the screen protocol loads no other protocol's module
    code = ("import sys; from desktop_app.runs.protocols import get_protocol; get_protocol('screen'); "
            "print(sorted(m for m in sys.modules if m.startswith('desktop_app.runs.protocols.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "browse" not in loaded and "live" not in loaded and "desktop_app.runs.protocols.screen" in loaded
