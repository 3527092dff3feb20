"""Trajectory judges end to end: the authors' UnifiedTrajectory folder in, human labels, judges asked
through the real openai client against the local fake server (scripted answers), agreement worked out
by hand, reviews, and the authors' evals lines out."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from desktop_app import api
from desktop_app.cli.main import main
from desktop_app.formats.records import FormatError
from desktop_app.formats.transfer import export_path, import_path
from desktop_app.judging.parse import parse_verdict
from desktop_app.paths import navi_demo_dataset_dir
from desktop_app.runs.protocols import OptionsError
from desktop_app.store import models as m
from desktop_app.store.project import Project

from conftest import make_image
from openai_server import FakeOpenAI, Response, user_text

TAP = "Action Type: DualPoint, Touch Point: (0.5000, 0.3000), Lift Point: (0.5000, 0.3000)"
SWIPE = "Action Type: DualPoint, Touch Point: (0.5000, 0.8000), Lift Point: (0.5000, 0.2000)"
# policies: "good" succeeds on t1, t2; "bad" fails on t3, t4 (by the humans' labels below)
TRAJECTORIES = [
    ("t1", "good", "Turn on Wi-Fi", [TAP, TAP]),
    ("t2", "good", "Open the alarm app", [SWIPE, TAP]),
    ("t3", "bad", "Set an alarm for 7 am", [TAP]),
    ("t4", "bad", "Find the weather in Paris", [SWIPE, SWIPE, TAP]),
]
LABELS = {  # uid -> {annotator: annotation}
    "t1": {"ann": "Success", "bob": "Success"},
    "t2": {"ann": "Success", "bob": "Failure"},
    "t3": {"ann": "Failure", "bob": "Failure"},
    "t4": {"ann": "Failure", "bob": "Failure"},
}
# the judge: right on t1, t3, t4; calls t2 a failure (a false negative); the reference of t2 is
# ann's success and bob's failure: a tie -> no reference, so the judge is scored on t1, t3, t4 only
JUDGE = {"Turn on Wi-Fi": 'Thoughts: Wi-Fi shows as on.\nStatus: "success"',
         "Open the alarm app": 'Thoughts: the home screen is shown.\nStatus: "failure"',
         "Set an alarm for 7 am": 'Thoughts: no alarm was added.\nStatus: "failure"',
         "Find the weather in Paris": 'Thoughts: nothing\nStatus: maybe'}  # unreadable: a parse failure


def write_unified(folder, labels=LABELS, captions=True):
    (folder / "images").mkdir(parents=True)
    log = []
    for n, (uid, policy, intent, actions) in enumerate(TRAJECTORIES):
        steps = []
        for i, action in enumerate(actions):
            name = f"{uid}_{i}.png"
            make_image(folder / "images" / name, size=(180, 320), color=(20 * n, 30 * i, 90))
            steps.append({"img": name, "other": {"action": action}})
        log.append({"uid": uid, "intent": intent, "response": "", "policy": policy, "steps": steps})
    (folder / "trajectory_log.json").write_text(json.dumps(log))
    if captions:
        (folder / "captions").mkdir()
        caps = {f"{uid}_{i}": f"Screen {i} of {uid}: a settings list" for uid, _, _, acts in TRAJECTORIES
                for i in range(len(acts))}
        (folder / "captions" / "cap-v1.json").write_text(json.dumps(caps))
    (folder / "evals").mkdir()
    lines = [{"dataset_path": folder.name, "task_idx": i, "task_uid": uid, "user_uid": user, "annotation": label,
              "comment": ""} for i, (uid, by) in enumerate(labels.items()) for user, label in by.items()]
    (folder / "evals" / "humans.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return folder


@pytest.fixture
def judged(tmp_path, monkeypatch):
    monkeypatch.setenv("SCREENLAB_TEST_KEY", "sk-test")
    path = tmp_path / "p"
    with Project.init(path):
        pass
    assert main(["judge", "import", str(path), str(write_unified(tmp_path / "android_set"))]) == 0
    return path


def add_judge(server, name="judge"):
    assert main(["agents", "add", name, "--base-url", server.base_url, "--model", "judge-model",
                 "--api-key-env", "SCREENLAB_TEST_KEY", "--concurrency", "4", "--replace"]) == 0


def scripted(body, n):
    text = user_text(body)
    return Response(text=next(answer for intent, answer in JUDGE.items() if intent in text))


def test_import_reads_actions_labels_and_captions(judged):
    with Project.open(judged) as project:
        rows = {r.key: r for r in api.trajectories(project)}
        assert [rows[k].policy for k in ("t1", "t3")] == ["good", "bad"]
        t2 = api.trajectory(project, rows["t2"].episode_id)
        # DualPoint 0.6 apart is a swipe, drawn from touch to lift; 0 apart a tap
        assert [s.action.text for s in t2.steps] == ["swipe on screen", "tap"]
        assert t2.steps[0].action.points == ((0.5, 0.8), (0.5, 0.2)) and t2.platform == "android"
        assert t2.actions_text == "1: swipe on screen\n2: tap\n"
        labels = api.trajectory_labels(project)[rows["t2"].episode_id]
        assert {a: lab.outcome for a, lab in labels.items()} == {"ann": "success", "bob": "failure"}
        with project.reading() as s:
            assert s.execute(select(m.ScreenCaption).where(m.ScreenCaption.captioner == "cap-v1")).scalars().all()
        # trajectories stay out of the screen runs; the judge protocol is what they suggest
        assert api.plan_run(project, protocol="screen").steps == 0
        assert (api.plan_run(project).protocol, api.plan_run(project).units) == ("judge", 4)


def test_a_label_for_an_unknown_trajectory_refuses_the_whole_import(tmp_path):
    folder = write_unified(tmp_path / "set", labels={**LABELS, "t9": {"ann": "Success"}})
    with Project.init(tmp_path / "p") as project:
        with pytest.raises(FormatError) as err:
            import_path(project, folder, "unified-trajectory")
        assert "humans.jsonl" in str(err.value) and "line 9" in str(err.value) and "task_uid" in str(err.value)
        assert api.trajectories(project) == []


def test_end_to_end_judge_agreement_review_and_export(judged, tmp_path, capsys):
    with FakeOpenAI(scripted) as server:
        add_judge(server)
        assert main(["judge", "run", str(judged), "--judge", "judge"]) == 0
        body = server.requests[0]
    assert len(server.requests) == 4
    assert body["temperature"] == 0  # as the authors ran their judges
    images = [c for c in body["messages"][1]["content"] if c.get("type") == "image_url"]
    assert len(images) == 1 and images[0]["image_url"]["detail"] == "high"  # the last frame, full detail
    assert "Thoughts:" in body["messages"][0]["content"] and "Status:" in body["messages"][0]["content"]
    capsys.readouterr()
    with Project.open(judged) as project:
        (run,) = api.judge_runs(project)
        assert run.status == "done"
        verdicts = {api.trajectory(project, eid).key: v for eid, v in api.judge_verdicts(project, run.id).items()}
        assert verdicts["t4"].status == "" and verdicts["t4"].wrong_format  # flagged, not counted as a failure
        assert verdicts["t4"].raw_text == JUDGE["Find the weather in Paris"]
        metrics = api.agreement(project)["runs"][run.id]
    # scored: t1 (human success, judge success) TP; t3 (failure, failure) TN; t2 has no reference (tie);
    # t4 a parse failure -> tp 1, tn 1, n 2, accuracy 2/2; kappa: po 1, pe = .5*.5 + .5*.5 = .5 -> 1.0
    assert metrics["confusion"] | {} == metrics["confusion"]
    c = metrics["confusion"]
    assert (c["tp"], c["fp"], c["tn"], c["fn"], c["accuracy"]) == (1, 0, 1, 0, 1.0)
    assert metrics["kappa"] == 1.0 and metrics["parse_failures"] == 1 and metrics["no_reference"] == 1

    # bob changes his mind on t2: the reference is now failure (2 of 2) and the judge's failure agrees
    assert main(["judge", "label", str(judged), "t2", "--outcome", "success", "--annotator", "bob"]) == 0
    # now t2 is success by both: the judge's "failure" is a false negative
    with Project.open(judged) as project:
        metrics = api.agreement(project)["runs"][run.id]
        c = metrics["confusion"]
        # tp 1 (t1), fn 1 (t2), tn 1 (t3): accuracy 2/3, recall 1/2, FNR 1/2, precision 1/1
        assert (c["tp"], c["fn"], c["tn"], c["fp"]) == (1, 1, 1, 0)
        assert c["accuracy"] == pytest.approx(2 / 3) and c["fnr"] == 0.5 and c["precision"] == 1.0
        # policies: humans good 2/2, bad 0/1 (t4 has no verdict, so it is not among the judged);
        # judge good 1/2, bad 0/1 -> same order, tau-b 1
        assert metrics["policies"]["good"]["judge"]["rate"] == 0.5
        assert metrics["ranking"]["tau_b"] == 1.0
        (d,) = api.disagreements(project, run.id)
        assert (d.key, d.reference, d.judged, d.thoughts) == ("t2", True, "failure", "the home screen is shown.")
    assert main(["judge", "agreement", str(judged)]) == 0
    out = capsys.readouterr().out
    assert "accuracy 66.7%" in out and "false negatives 50.0%" in out and "annotators ann / bob: 4 shared" in out

    # the reviewer sides with the judge: the reference of t2 becomes failure, the disagreement goes away
    assert main(["judge", "review", str(judged), str(run.id), "t2", "accept", "--tag", "ambiguous task",
                 "--reviewer", "carol"]) == 0
    with Project.open(judged) as project:
        assert api.disagreements(project, run.id) == []
        assert api.agreement(project)["corrected"] == 1
        with project.reading() as s:
            audit = s.execute(select(m.AuditEntry).where(m.AuditEntry.entity == "judge_review")).scalar_one()
        assert audit.actor == "carol" and audit.changes["decision"] == "accept"

    # the authors' evals lines: the humans' labels, and the judge's verdicts with its reasoning
    out_dir = tmp_path / "out"
    assert main(["judge", "export", str(judged), "evals", str(out_dir / "humans.jsonl")]) == 0
    assert main(["judge", "export", str(judged), "evals", str(out_dir / "judge.jsonl"), "--run", str(run.id)]) == 0
    humans = [json.loads(x) for x in (out_dir / "humans.jsonl").read_text().splitlines()]
    judge = [json.loads(x) for x in (out_dir / "judge.jsonl").read_text().splitlines()]
    assert {(x["task_uid"], x["user_uid"]): x["annotation"] for x in humans}[("t2", "bob")] == "Success"
    assert set(humans[0]) == {"dataset_path", "task_idx", "task_uid", "user_uid", "annotation", "comment"}
    assert humans[0]["dataset_path"] == "android_set"
    assert [(x["task_uid"], x["annotation"]) for x in judge] == [("t1", "Success"), ("t2", "Failure"),
                                                                  ("t3", "Failure")]  # t4: no verdict to claim
    # filtered behaviour cloning: the trajectories the judge passed, in the authors' layout
    assert main(["judge", "export", str(judged), "passed", str(out_dir / "passed"), "--run", str(run.id)]) == 0
    assert [t["uid"] for t in json.loads((out_dir / "passed" / "trajectory_log.json").read_text())] == ["t1"]
    assert main(["judge", "export", str(judged), "csv", str(out_dir / "all.csv")]) == 0
    assert (out_dir / "all.csv").read_text().splitlines()[0].startswith("key,policy,steps,intent,reference,label:ann")


def test_annotators_who_said_success_throughout_have_no_kappa_and_are_told_why(tmp_path, capsys):
    # ann and bob call all four trajectories a success: po = 1 and pe = 1*1 = 1, kappa 0/0. It was 1.0 in the
    # teams' kappa and None here; now one rule everywhere (ADR 0031): "-", with the reason, never "1.00".
    from desktop_app.stats.kappa import ONE_LABEL

    path = tmp_path / "p"
    with Project.init(path):
        pass
    labels = {uid: {"ann": "Success", "bob": "Success"} for uid in LABELS}
    assert main(["judge", "import", str(path), str(write_unified(tmp_path / "android_set", labels))]) == 0
    with Project.open(path) as project:
        (pair,) = api.agreement(project)["annotators"]["pairs"]
    assert (pair["n"], pair["agreement"], pair["kappa"], pair["kappa_note"]) == (4, 1.0, None, ONE_LABEL)
    capsys.readouterr()
    assert main(["judge", "agreement", str(path)]) == 0
    assert f"annotators ann / bob: 4 shared, kappa - ({ONE_LABEL})" in capsys.readouterr().out


def test_caption_mode_reads_imported_captions_and_a_captioner_never_sees_the_task(judged, monkeypatch):
    with FakeOpenAI(scripted) as server:
        add_judge(server)
        assert main(["judge", "run", str(judged), "--judge", "judge", "--mode", "caption",
                     "--captioner", "cap-v1", "--frames", "2"]) == 0
        bodies = list(server.requests)
    assert len(bodies) == 4 and all(isinstance(b["messages"][1]["content"], str) for b in bodies)  # text only
    t1 = next(b for b in bodies if "Turn on Wi-Fi" in user_text(b))
    assert "Screen 0 of t1" in user_text(t1) and "Screen 1 of t1" in user_text(t1)  # the last 2 frames

    # a model captioner: asked once per screen, without the task, its captions stored and reused
    def respond(body, n):
        if "Describe the screenshot" in user_text(body):
            return Response(text=f"# Screen\n- item {n}")
        return scripted(body, n)

    with FakeOpenAI(respond) as server:
        add_judge(server)
        add_judge(server, "captioner")
        assert main(["judge", "run", str(judged), "--judge", "judge", "--mode", "caption", "--captioner",
                     "captioner", "--no-ocr"]) == 0
        captions = [b for b in server.requests if "Describe the screenshot" in user_text(b)]
        assert len(captions) == 4  # one last frame per trajectory, none shared
        assert not any(intent in user_text(b) for b in captions for intent in JUDGE)
        judged_bodies = [b for b in server.requests if b not in captions]
        assert all("# Screen" in user_text(b) for b in judged_bodies)
        assert main(["judge", "run", str(judged), "--judge", "judge", "--mode", "caption", "--captioner",
                     "captioner", "--no-ocr", "--no-cache"]) == 0
        assert sum("Describe the screenshot" in user_text(b) for b in server.requests) == 4  # stored: not again


def test_per_step_mode_labels_every_step_and_the_last_decides(judged):
    def respond(body, n):
        text = user_text(body)
        last = "this was the agent's last action" in text
        if "weather" in text:
            return Response(text='Thoughts: a detour\nResponse: "away-from-the-goal"')
        return Response(text='Thoughts: ok\nResponse: "goal-reached"' if last and "Wi-Fi" in text
                        else 'Thoughts: ok\nResponse: "towards-the-goal"')

    with FakeOpenAI(respond) as server:
        add_judge(server)
        assert main(["judge", "run", str(judged), "--judge", "judge", "--mode", "per_step"]) == 0
        assert len(server.requests) == 8  # 2 + 2 + 1 + 3 steps
        two = [b for b in server.requests if "Action 1 of 2" in user_text(b)]
        assert all(len([c for c in b["messages"][1]["content"] if c.get("type") == "image_url"]) == 2 for b in two)
    with Project.open(judged) as project:
        (run,) = api.judge_runs(project)
        verdicts = {api.trajectory(project, eid).key: v for eid, v in api.judge_verdicts(project, run.id).items()}
    assert verdicts["t1"].step_labels == ("towards-the-goal", "goal-reached") and verdicts["t1"].status == "success"
    assert verdicts["t3"].status == "failure"


def test_filtered_bc_keeps_the_steps_whose_reward_reaches_the_threshold(judged, tmp_path, capsys):
    test_per_step_mode_labels_every_step_and_the_last_decides(judged)
    with Project.open(judged) as project:
        (run,) = api.judge_runs(project)
    capsys.readouterr()
    # default rewards (goal-reached 1, towards 0.5, away -1) at p 0.5: t1's 2, t2's 2 and t3's 1 step;
    # t4's three steps lead away from the goal
    assert main(["judge", "export", str(judged), "steps", str(tmp_path / "bc"), "--run", str(run.id)]) == 0
    assert "wrote 5 of 8 labelled steps" in capsys.readouterr().out
    lines = [json.loads(x) for x in (tmp_path / "bc" / "steps.jsonl").read_text().splitlines()]
    assert [(x["uid"], x["step"], x["label"]) for x in lines] == [
        ("t1", 0, "towards-the-goal"), ("t1", 1, "goal-reached"), ("t2", 0, "towards-the-goal"),
        ("t2", 1, "towards-the-goal"), ("t3", 0, "towards-the-goal")]
    assert lines[2]["action"] == "swipe on screen" and lines[2]["points"] == [[0.5, 0.8], [0.5, 0.2]]
    assert all((tmp_path / "bc" / x["img"]).is_file() for x in lines)
    # "makes progress" worth nothing: only the step that completes the task is kept
    assert main(["judge", "export", str(judged), "steps", str(tmp_path / "bc2"), "--run", str(run.id),
                 "--reward", "towards-the-goal=0"]) == 0
    assert "wrote 1 of 8" in capsys.readouterr().out
    # an annotator's step labels instead of a judge's; a bad reward or nothing kept says so and writes nothing
    with Project.open(judged) as project:
        t4 = next(r.episode_id for r in api.trajectories(project) if r.key == "t4")
        api.label_trajectory(project, t4, "ann", "failure", step_labels=["towards-the-goal", "", "not-sure"])
        assert api.export_steps(project, tmp_path / "ann", annotator="ann") == (1, 2)
        with pytest.raises(FormatError, match="nothing to export"):
            api.export_steps(project, tmp_path / "none", annotator="ann", min_reward=2)
        with pytest.raises(ValueError, match="unknown step label 'progress'"):
            api.export_steps(project, tmp_path / "none", run_id=run.id, rewards={"progress": 1})
    assert not (tmp_path / "none").exists()
    assert main(["judge", "export", str(judged), "steps", str(tmp_path / "x"), "--run", str(run.id),
                 "--reward", "towards-the-goal"]) == 2
    assert "expected LABEL=NUMBER" in capsys.readouterr().err


def test_a_judge_needs_a_model_and_a_known_captioner(judged):
    with Project.open(judged) as project:
        with pytest.raises(ValueError, match="must be a model"):
            api.create_run(project, api.agent(name="r", kind="random"), protocol="judge")
        with pytest.raises(ValueError, match="neither an imported caption set nor a model profile"):
            api.create_run(project, api.agent(name="j", base_url="http://127.0.0.1:9/v1", model="m",
                                              api_key_env="SCREENLAB_TEST_KEY"),
                           protocol="judge", mode="caption", captioner="nobody")
        with pytest.raises(ValueError, match="unknown judge mode"):
            api.plan_run(project, protocol="judge", mode="vibes")


@pytest.mark.parametrize("text, status", [
    ('Thoughts: fine\nStatus: "success"', "success"),
    ("**Thoughts:** the cart is empty\n**Status:** failure.", "failure"),
    ('{"thoughts": "the item does not exist", "status": "task-impossible"}', "impossible"),
    ('```json\n{"thoughts": "ok", "status": "task-possible-bot-success"}\n```', "success"),
    ("I think it worked.", ""),
    ('Status: "probably"', ""),
])
def test_verdict_parsing(text, status):
    assert parse_verdict(text).status == status


def test_episodes_and_runs_become_trajectories_and_round_trip(tmp_path):
    with Project.init(tmp_path / "navi") as project:
        import_path(project, navi_demo_dataset_dir(), "screenlab")
        made = api.trajectories_from_episodes(project, {"scenarios": ["navigation"]})
        assert len(made) == 6 and api.trajectories_from_episodes(project, {"scenarios": ["navigation"]}) == []
        t = api.trajectory(project, made[0])
        assert t.policy == "demonstration" and t.steps[0].action.text.startswith("click at [")
        api.label_trajectory(project, made[0], "ann", "success", ["towards-the-goal"], "clean run")
        report = export_path(project, tmp_path / "out", "unified-trajectory")
        assert report.episodes == 6
    with Project.init(tmp_path / "again") as project:
        import_path(project, tmp_path / "out", "unified-trajectory")
        rows = api.trajectories(project)
        assert len(rows) == 6 and rows[0].labels == {"ann": "success"}
        again = api.trajectory(project, rows[0].episode_id)
        assert [s.action.text for s in again.steps] == [s.action.text for s in t.steps]


@pytest.mark.parametrize("raw, text, kind", [
    ("click [1234] where [1234] is button 'Search'", "click at ['Search']", "click"),
    # the element is what follows the LAST "]" (the authors' cut), so "where [7]" is dropped
    ("type [7] [blue shoes] [1] where [7] is searchbox Search", "type [blue shoes] at [is searchbox Search]", "type"),
    ("scroll [down]", "scroll [down]", "scroll"),
    ("click at [Checkout]", "click at [Checkout]", "click"),  # our own export, read back as written
])
def test_web_actions_read_as_the_authors_cut_them(raw, text, kind):
    from desktop_app.formats.trajectory_layout import web_action

    action = web_action(raw)
    assert (action.text, action.kind) == (text, kind)


def test_android_actions_tap_swipe_and_the_rest():
    from desktop_app.formats.trajectory_layout import android_action

    near = android_action("Action Type: DualPoint, Touch Point: (0.5000, 0.5000), Lift Point: (0.5300, 0.5300)")
    far = android_action("Action Type: DualPoint, Touch Point: (0.5000, 0.5000), Lift Point: (0.5400, 0.5400)")
    assert (near.text, far.text) == ("tap", "swipe on screen")  # 0.042 apart vs 0.057 apart (threshold 0.05)
    typed = android_action("Action Type: Type, Typed Text: 'hello 3.5'")
    assert (typed.kind, typed.text) == ("type", "Action Type: Type, Typed Text: 'hello 3.5'")
    assert android_action("Action Type: GoHome").kind == "home"


def test_imported_verdicts_are_a_judge_run_measured_like_ours(judged, tmp_path, capsys):
    # the authors' evaluator output (outputs/<run name>/rm_results.json): right on t1 and t3, a false
    # positive on t4, and t2 (the humans tie on it) unscored
    rm = {"t1": {"gt": True, "rm": True}, "t2": {"gt": True, "rm": False}, "t3": {"gt": False, "rm": False},
          "t4": {"gt": False, "rm": True}}
    path = tmp_path / "outputs" / "brave-red-fox" / "rm_results.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(rm))
    assert main(["judge", "import-verdicts", str(judged), str(path)]) == 0
    assert "'brave-red-fox': 4 imported verdicts" in capsys.readouterr().out
    with Project.open(judged) as project:
        (run,) = api.judge_runs(project)
        assert (run.name, run.kind, run.status, run.samples) == ("brave-red-fox", "imported", "done", 4)
        verdicts = {api.trajectory(project, eid).key: v.status for eid, v in api.judge_verdicts(project, run.id).items()}
        assert verdicts == {"t1": "success", "t2": "failure", "t3": "failure", "t4": "success"}
        c = api.agreement(project)["runs"][run.id]["confusion"]
        # scored t1 TP, t3 TN, t4 FP: accuracy 2/3, precision 1/2, no false negative
        assert (c["tp"], c["fp"], c["tn"], c["fn"]) == (1, 1, 1, 0)
        assert c["accuracy"] == pytest.approx(2 / 3) and c["precision"] == 0.5 and c["fnr"] == 0.0
        # there is no model behind it: resuming refuses, and the run is not marked failed
        with pytest.raises(OptionsError, match="imported from a file"):
            api.execute_run(project, run.id)
        assert api.judge_runs(project)[0].status == "done"
    # the same name twice would mix two files' verdicts: refused
    assert main(["judge", "import-verdicts", str(judged), str(path)]) == 2
    assert "already holds imported verdicts" in capsys.readouterr().err


def test_imported_evals_lines_pick_a_judge_keep_its_reasoning_and_leave_unsure_out(judged, tmp_path, capsys):
    lines = [{"task_uid": "t1", "user_uid": "gpt-judge", "annotation": "Failure", "comment": "first try"},
             {"task_uid": "t1", "user_uid": "gpt-judge", "annotation": "Success", "comment": "Wi-Fi is on."},
             {"task_uid": "t3", "user_uid": "gpt-judge", "annotation": "Unsure", "comment": ""},
             {"task_uid": "t4", "user_uid": "other-judge", "annotation": "Success", "comment": ""}]
    path = tmp_path / "verdicts.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert api.judges_in_file(path) == ["gpt-judge", "other-judge"]
    assert main(["judge", "import-verdicts", str(judged), str(path)]) == 2
    err = capsys.readouterr().err
    assert "verdicts.jsonl" in err and "gpt-judge, other-judge" in err and "--user" in err
    assert main(["judge", "import-verdicts", str(judged), str(path), "--user", "gpt-judge"]) == 0
    # later lines win (t1 success); t3's only line is unsure: no verdict, counted
    assert "'gpt-judge': 1 imported verdicts; 1 left out" in capsys.readouterr().out
    with Project.open(judged) as project:
        (run,) = api.judge_runs(project)
        (verdict,) = api.judge_verdicts(project, run.id).values()
        assert (verdict.status, verdict.thoughts) == ("success", "Wi-Fi is on.")


@pytest.mark.parametrize("content, name, message", [
    ('{"task_uid": "t1", "user_uid": "j", "annotation": "Success"}\n'
     '{"task_uid": "t9", "user_uid": "j", "annotation": "Failure"}\n', "v.jsonl", "line 2, field 'task_uid': no trajectory 't9'"),
    ('{"task_uid": "t1", "user_uid": "j", "annotation": "Great"}\n', "v.jsonl", "line 1, field 'annotation': unknown annotation"),
    ('{"t1": {"gt": true, "rm": "yes"}}', "rm_results.json", "field 't1.rm': expected true/false, got str"),
    ('{"t1": {"gt": true}}', "rm_results.json", "field 't1.rm': missing"),
    ("[1, 2]", "rm_results.json", "expected an object"),
    ("t1,success", "verdicts.csv", "rm_results.json or an evals .jsonl"),
])
def test_a_bad_verdict_file_imports_nothing_and_says_where(judged, tmp_path, content, name, message):
    path = tmp_path / name
    path.write_text(content)
    with Project.open(judged) as project:
        with pytest.raises(FormatError) as err:
            api.import_judge_verdicts(project, path)
        assert name in str(err.value) and message in str(err.value)
        assert api.judge_runs(project) == []
        with project.reading() as s:
            assert s.execute(select(m.Prediction)).first() is None


def test_the_import_summary_counts_trajectories_labels_and_captions(tmp_path):
    with Project.init(tmp_path / "p") as project:
        text = import_path(project, write_unified(tmp_path / "set"), "unified-trajectory").summary()
    # 4 trajectories of 2 + 2 + 1 + 3 steps, two annotators on each, a caption per screen; no labelled boxes
    assert "imported 4 trajectories (8 steps)" in text and "trajectory labels: 8; screen captions: 8" in text
    assert "actions:" not in text


def test_a_point_only_agent_s_trajectory_names_the_elements_it_tapped(tmp_path):
    """The centre baseline answers a bare point; the judge reads no coordinates, so each action is named
    after the labelled box the point falls in (on the phone screens the centre, 206 x 457, is inside
    Display's row of the settings list and the contacts list's Marta Silva)."""
    with Project.init(tmp_path / "p") as project:
        import_path(project, navi_demo_dataset_dir(), "screenlab")
        run_id, progress = api.run(project, "center", {"scenarios": ["navigation"]}, protocol="episode")
        assert progress.done == 32
        made = [api.trajectory(project, e) for e in api.trajectories_from_run(project, run_id)]
        made = {t.key: t for t in made}
    settings, wallet = made[f"run{run_id}:navi-settings-timeout"], made[f"run{run_id}:navi-pocketly-send"]
    assert settings.steps[1].action.text == "click at [Display]"
    assert wallet.steps[1].action.text == "click at [Marta Silva]"
    assert settings.steps[0].action.text == "click at [an unnamed element]"  # between the home screen's icons
    assert settings.steps[1].action.points == ((0.5, 0.5),)  # the tap is still drawn where it was


def test_labels_without_a_name_in_settings_are_the_os_user_s(judged, monkeypatch):
    monkeypatch.setenv("SCREENLAB_USER", "dana")  # what the audit log records as the actor, as the window does
    assert main(["judge", "label", str(judged), "t1", "--outcome", "failure"]) == 0
    with Project.open(judged) as project:
        t1 = next(r for r in api.trajectories(project) if r.key == "t1")
        assert t1.labels["dana"] == "failure"
