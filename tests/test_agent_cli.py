"""`screenlab agents | run | eval | parse-action` end to end."""

import json

from desktop_app.cli.main import main
from desktop_app.formats.transfer import import_path
from desktop_app.paths import demo_dataset_dir
from desktop_app.store.project import Project

from openai_server import FakeOpenAI, Response


def test_add_an_agent_run_it_and_read_the_scores(tmp_path, capsys, monkeypatch):
    project = tmp_path / "p"
    with Project.init(project) as p:
        import_path(p, demo_dataset_dir(), "screenlab")
    monkeypatch.setenv("TEST_KEY", "sk-abc")
    with FakeOpenAI(lambda body, n: Response(text='{"action_type": "click", "point": [640, 400]}')) as server:
        assert main(["agents", "add", "local", "--base-url", server.base_url, "--model", "m",
                     "--convention", "point-px", "--api-key-env", "TEST_KEY"]) == 0
        assert main(["agents"]) == 0
        listing = capsys.readouterr().out
        assert "uitars-1.5" in listing and "local" in listing and "env:TEST_KEY" in listing
        assert main(["run", str(project), "--agent", "local", "--where", "scenario=popup|chat"]) == 0
        out = capsys.readouterr().out
        assert "run 1:" in out and "0 failed" in out and "cached" not in out.split("\n")[1]
        # the same again: the plan says nothing is left to ask
        asked = len(server.requests)
        assert main(["run", str(project), "--agent", "local", "--where", "scenario=popup|chat"]) == 0
        plan = capsys.readouterr().out.splitlines()
        steps = int(plan[0].split(", ")[1].split()[0])
        assert f"  0 to ask: {steps} of {steps} answers are cached" in plan and len(server.requests) == asked
    assert main(["eval", str(project), "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    run = metrics["runs"]["1"]
    assert metrics["runs"]["2"]["metrics"] == run["metrics"]  # the cached answers, scored alike
    assert (run["protocol"], run["status"], run["agent"]) == ("screen", "done", "local")
    overall = run["metrics"]["screenlab"]["overall"]
    assert overall["n"] > 0 and set(run["metrics"]["screenlab"]["by_scenario"]) == {"popup", "chat"}
    assert abs(overall["acc_gold"] + overall["acc_dist"] + overall["acc_other"] + overall["acc_inv"] - 1) < 1e-9
    assert main(["eval", str(project), "--per-sample"]) == 0
    rows = [r for r in (json.loads(line) for line in capsys.readouterr().out.splitlines()) if r["run"] == 1]
    assert len(rows) == overall["n"]
    assert {"episode", "goal", "point", "verdict", "wrong_format"} <= set(rows[0])
    assert rows[0]["episode"].startswith("demo-") and rows[0]["point"] == [640, 400]


def test_parse_action_prints_the_point_in_original_pixels(capsys):
    assert main(["parse-action", "--convention", "uitars", "--image-size", "1280x800",
                 "Thought: close it\nAction: click(start_box='<|box_start|>(500,250)<|box_end|>')"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["action_type"] == "click" and out["point"] == [640, 200] and out["wrong_format"] is False
    assert main(["parse-action", "--convention", "seeclick", "--image-size", "1280x800", "no idea"]) == 0
    assert json.loads(capsys.readouterr().out)["wrong_format"] is True


def test_unknown_agent_is_a_clear_error(tmp_path, capsys):
    Project.init(tmp_path / "p").close()
    assert main(["run", str(tmp_path / "p"), "--agent", "nobody"]) == 2
    assert "no agent named 'nobody'" in capsys.readouterr().err


def test_a_key_given_as_the_variable_name_is_refused_and_not_saved(capsys):
    from desktop_app.agents.profiles import load_profiles, profiles_path

    code = main(["agents", "add", "leaky", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                 "--api-key-env", "sk-proj-Abc123.xyz"])
    err = capsys.readouterr().err
    assert code != 0 and "letters, digits and _" in err and "sk-proj" not in err
    assert "leaky" not in load_profiles()
    assert not profiles_path().exists() or "sk-proj" not in profiles_path().read_text()
