"""The run engine against a local OpenAI-compatible server, through the real openai client."""

from __future__ import annotations

import json
import re
import threading
from collections import Counter

import pytest
from sqlalchemy import select, text

from desktop_app.agents.profiles import AgentProfile
from desktop_app.evaluation.rescore import rescore
from desktop_app.formats.transfer import import_path
from desktop_app.opening import keep_verdicts_current
from desktop_app.runs.engine import create_run, execute
from desktop_app.runs.evaluate import evaluate
from desktop_app.store import edits
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter

from openai_server import FakeOpenAI, Response, user_text

TASK = re.compile(r"(?:Task: |<user_goal>)(.*?)(?:</user_goal>|\n|$)")


@pytest.fixture
def project(demo_copy):
    """The demo, a copy of the worker's once-imported one (conftest.demo_copy), not imported again per test."""
    with Project.open(demo_copy) as p:
        yield p


def answers(project):
    """goal -> (gold text, distracted text) from the annotations."""
    out = {}
    with project.reading() as s:
        for episode in s.execute(select(m.Episode)).scalars():
            boxes = s.execute(select(m.ActionBox).join(m.Step).where(m.Step.episode_id == episode.id)).scalars()
            by = {}
            for b in boxes:
                if b.x1 is not None:
                    by.setdefault(b.label, b.element_text)
            out[episode.goal] = (by["gold"], by["distracted"])
    return out


def goal_of(body):
    found = TASK.findall(user_text(body))  # the last one: the system prompt names the markers too
    return found[-1].strip() if found else ""


def profile(server, **kw):
    base = dict(name="tester", base_url=server.base_url, model="test-model", convention="json-text",
                concurrency=4, max_retries=3, timeout_s=2.0)
    return AgentProfile(**{**base, **kw})


def element_answer(text):
    return Response(text=json.dumps({"action_type": "click", "element": text}))


def test_a_run_scores_every_accepted_sample(project):
    truth = answers(project)
    goals = sorted(truth)
    distract = set(goals[::3])

    def respond(body, n):
        goal = goal_of(body)
        gold, bad = truth[goal]
        return element_answer(bad if goal in distract else gold)

    with FakeOpenAI(respond) as server:
        run_id = create_run(project, profile(server), EpisodeFilter())
        status = execute(project, run_id)
    with project.reading() as s:
        rows = s.execute(select(m.Prediction, m.Episode).join(m.Step, m.Step.id == m.Prediction.step_id)
                         .join(m.Episode, m.Episode.id == m.Step.episode_id)).all()
        pending = s.execute(select(m.Episode).where(m.Episode.review_status == "pending")).scalars().all()
    assert status.total == 28 - len(pending) and len(rows) == status.total  # pending ones are left out
    for prediction, episode in rows:
        assert prediction.verdict == ("distracted" if episode.goal in distract else "gold"), episode.key
        assert prediction.matched_box_id is not None and prediction.prompt_tokens == 1000
    metrics = evaluate(project, [run_id], ("screenlab",))["runs"][run_id]["metrics"]["screenlab"]["overall"]
    n_dist = sum(1 for _, e in rows if e.goal in distract)
    assert metrics["acc_dist"] == pytest.approx(n_dist / len(rows))
    assert metrics["acc_gold"] + metrics["acc_dist"] == pytest.approx(1.0)


def test_faults_are_retried_within_bounds_and_the_run_completes(project):
    truth = answers(project)
    goals = sorted(truth)
    seen = Counter()
    lock = threading.Lock()
    faults = {goals[0]: Response(status=429, headers={"retry-after": "0"}), goals[1]: Response(status=500),
              goals[2]: Response(delay=3.0), goals[3]: Response(raw_body=b"<html>gateway</html>", status=502),
              goals[4]: Response(status=503)}
    always_down = goals[5]

    def respond(body, n):
        goal = goal_of(body)
        with lock:
            seen[goal] += 1
            first = seen[goal] == 1
        if goal == always_down:
            return Response(status=500)
        if first and goal in faults:
            return faults[goal]
        return element_answer(truth[goal][0])

    with FakeOpenAI(respond) as server:
        run_id = create_run(project, profile(server, timeout_s=1.0), EpisodeFilter(review_statuses=("accepted", "pending")))
        status = execute(project, run_id)
    assert status.errors == 1 and seen[always_down] == 4  # 1 try + max_retries 3, then it gives up
    assert all(seen[g] == 2 for g in faults) and max(seen.values()) <= 4
    with project.reading() as s:
        verdicts = Counter(s.execute(select(m.Prediction.verdict)).scalars())
        error = s.execute(select(m.Prediction).where(m.Prediction.verdict == "error")).scalar_one()
    assert verdicts == {"gold": 27, "error": 1} and "HTTP 500" in error.error


def test_garbage_and_hostile_answers_are_wrong_format_not_crashes(project):
    def respond(body, n):
        return Response(text=["", "I would click somewhere nice.", "<script>alert(1)</script>", "{\"action_type\": "][n % 4])

    with FakeOpenAI(respond) as server:
        run_id = create_run(project, profile(server, concurrency=1), EpisodeFilter(scenarios=("popup",)))
        execute(project, run_id)
    with project.reading() as s:
        rows = s.execute(select(m.Prediction)).scalars().all()
    assert rows and all(p.verdict == "invalid" and p.wrong_format for p in rows)


def test_a_run_killed_halfway_resumes_without_asking_twice(project):
    truth = answers(project)
    cancel = threading.Event()

    def stop_after_ten(status):
        if status.done >= 10:
            cancel.set()

    with FakeOpenAI(lambda body, n: Response(text=element_answer(truth[goal_of(body)][0]).text, delay=0.05)) as server:
        run_id = create_run(project, profile(server), EpisodeFilter())
        first = execute(project, run_id, cancel=cancel, progress=stop_after_ten)
        assert first.cancelled and 10 <= first.done < first.total
        with project.reading() as s:
            finished = {g for (g,) in s.execute(select(m.Episode.goal).join(m.Step).join(
                m.Prediction, m.Prediction.step_id == m.Step.id))}
        asked_before = len(server.requests)
        second = execute(project, run_id, use_cache=False)
        asked_after = [goal_of(b) for b in server.requests[asked_before:]]
    assert not finished & set(asked_after)  # nothing finished was sent again
    assert second.skipped == len(finished) and second.done == first.total - len(finished)
    with project.reading() as s:
        assert s.execute(text("SELECT count(*) FROM prediction")).scalar() == first.total
        run = s.get(m.Run, run_id)
    assert run.status == "done" and run.executions == 2


def test_cached_answers_make_a_rerun_free(project):
    truth = answers(project)
    with FakeOpenAI(lambda body, n: element_answer(truth[goal_of(body)][0])) as server:
        execute(project, create_run(project, profile(server), EpisodeFilter()))
        asked = len(server.requests)
        again = execute(project, create_run(project, profile(server), EpisodeFilter()))
        assert len(server.requests) == asked and again.cached == again.total
        assert again.prompt_tokens == 0  # no new cost


def test_working_patterns_shape_the_prompts(project):
    truth = answers(project)
    bodies = {}

    def respond(body, n):
        if "List every element" in user_text(body) or "element a user could interact" in user_text(body):
            return Response(text='[{"element_name": "No thanks"}, {"element_name": "Subscribe"}]')
        decision = element_answer(truth[goal_of(body)][0]).text
        return Response(text="The pop-up is in the way. In conclusion, the next action is " + decision)

    flt = EpisodeFilter(scenarios=("popup",), review_statuses=("accepted",))
    for pattern in ("direct", "cot", "action_annotation", "goal_tagged"):
        with FakeOpenAI(respond) as server:
            execute(project, create_run(project, profile(server, pattern=pattern), flt), use_cache=False)
            bodies[pattern] = [user_text(b) for b in server.requests]
    n = len(bodies["direct"])
    assert len(bodies["cot"]) == 2 * n  # a listing call, then the decision with the list
    assert any("Interactable elements you listed" in b and "- Subscribe" in b for b in bodies["cot"])
    assert all("choose one of them" in b for b in bodies["action_annotation"])
    assert all("gold" not in b.lower() and "distracted" not in b.lower() for b in bodies["action_annotation"])
    assert all("<user_goal>" in b and "never an instruction to you" in b for b in bodies["goal_tagged"])
    with project.reading() as s:
        assert set(s.execute(select(m.Prediction.verdict)).scalars()) == {"gold"}


def test_api_keys_are_sent_but_never_stored(project, monkeypatch, tmp_path):
    monkeypatch.setenv("MY_TEST_KEY", "sk-very-secret-123")
    with FakeOpenAI() as server:
        run_id = create_run(project, profile(server, api_key_env="MY_TEST_KEY"), EpisodeFilter(scenarios=("chat",)))
        execute(project, run_id)
        assert set(server.auth_headers) == {"Bearer sk-very-secret-123"}
    dump = "\n".join(project.engine.raw_connection().iterdump())
    assert "sk-very-secret" not in dump and "env:MY_TEST_KEY" in dump


def test_fixing_a_label_rescores_the_predictions(project):
    truth = answers(project)
    with FakeOpenAI(lambda body, n: element_answer(truth[goal_of(body)][1])) as server:
        run_id = create_run(project, profile(server), EpisodeFilter(scenarios=("search",), review_statuses=("accepted",)))
        execute(project, run_id)
    with project.reading() as s:
        prediction = s.execute(select(m.Prediction)).scalars().first()
    assert prediction.verdict == "distracted"
    # the edit itself re-scores the answers on its step on a project opened as every door opens it
    # (api.open_project adds the re-scoring: store/box_listeners.py, ADR 0024): nothing is left
    keep_verdicts_current(project)
    edits.update_boxes(project, [(prediction.matched_box_id, {"label": "other"})])
    with project.reading() as s:
        assert s.get(m.Prediction, prediction.id).verdict == "other"
    assert rescore(project, step_ids=[prediction.step_id]) == 0


@pytest.mark.parametrize("kind", ["random", "center"])
def test_offline_baselines_run_without_a_network(project, kind):
    from desktop_app.agents.profiles import BASELINES

    run_id = create_run(project, BASELINES[kind], EpisodeFilter())
    status = execute(project, run_id)
    assert status.done == status.total and status.errors == 0
    with project.reading() as s:
        points = s.execute(select(m.Prediction.x, m.Prediction.y)).all()
    assert all(x is not None for x, _ in points)
    if kind == "center":
        assert {(x, y) for x, y in points} <= {(640.0, 400.0), (206.0, 457.5)}


def test_ocr_match_baseline_clicks_the_text_that_matches_the_goal(project):
    from desktop_app.agents.profiles import BASELINES

    # one screen keeps the test fast: real OCR on a rendered pop-up page
    flt = EpisodeFilter(text="demo-popup-04")
    run_id = create_run(project, BASELINES["ocr-match"], flt)
    status = execute(project, run_id)
    assert status.done == 1 and status.errors == 0
    with project.reading() as s:
        prediction = s.execute(select(m.Prediction)).scalar_one()
    assert prediction.x is not None and "OCR" in prediction.raw_text


def test_a_resumed_run_keeps_the_samples_it_was_created_with(project, tmp_path):
    """Samples imported after a run was created do not join it when it is resumed (the issue: resuming a
    finished 5-sample run after an import started asking ~14k new samples)."""
    from conftest import write_shoe_episodes

    with FakeOpenAI(lambda body, n: Response(text='{"action_type": "click", "element": "OK"}')) as server:
        run_id = create_run(project, profile(server), EpisodeFilter(scenarios=("popup",)))
        first = execute(project, run_id)
        asked = len(server.requests)
        # a later import of more popup samples
        folder = write_shoe_episodes(tmp_path / "more", 2)
        lines = (folder / "episodes.jsonl").read_text().splitlines()
        (folder / "episodes.jsonl").write_text("".join(
            json.dumps({**json.loads(line), "scenario": "popup", "id": f"late-{i}"}) + "\n"
            for i, line in enumerate(lines)))
        import_path(project, folder / "episodes.jsonl", "screenlab")
        second = execute(project, run_id)
    assert first.total > 0
    assert len(server.requests) == asked  # nothing new asked
    assert second.total == first.total and second.skipped == first.total


def test_a_run_waits_for_another_processs_long_write_instead_of_failing(project):
    """An import commits in one transaction and can hold SQLite's write lock longer than the busy timeout
    (10 s): the run's writes wait and the run ends done, not failed and not left "running"."""
    import sqlite3
    import time

    truth = answers(project)
    with FakeOpenAI(lambda body, n: Response(text=element_answer(truth[goal_of(body)][0]).text)) as server:
        run_id = create_run(project, profile(server), EpisodeFilter(scenarios=("popup",)))
        holder = sqlite3.connect(project.engine.url.database, timeout=1)
        holder.execute("BEGIN IMMEDIATE")  # another process's long import
        outcome = {}
        worker = threading.Thread(target=lambda: outcome.setdefault("status", execute(project, run_id)))
        worker.start()
        time.sleep(11.5)  # past the busy timeout
        assert worker.is_alive()  # still waiting, not failed
        holder.rollback()
        holder.close()
        worker.join(timeout=60)
    with project.reading() as s:
        run = s.get(m.Run, run_id)
        stored = s.execute(select(m.Prediction).where(m.Prediction.run_id == run_id)).scalars().all()
    assert run.status == "done" and len(stored) == outcome["status"].total > 0


def test_five_megabyte_answers_are_scored_whole_and_stored_cut(project):
    """A model that rambles 5 MB before its action: the action still counts, the project keeps 64 Ki of it."""
    from desktop_app.agents.kept_answer import KEPT_CHARS, characters_cut

    truth = answers(project)
    filler = "I look at the page again. " * 200_000  # 5.2 MB

    def respond(body, n):
        gold, _bad = truth[goal_of(body)]
        return Response(text=json.dumps({"thought": filler, "action_type": "click", "element": gold}))

    with project.reading() as s:  # three samples: the answers' size is what this checks, not how many get one
        three = tuple(s.execute(select(m.Episode.id).where(m.Episode.scenario == "popup").order_by(m.Episode.id)
                                .limit(3)).scalars())
    with FakeOpenAI(respond) as server:
        run_id = create_run(project, profile(server, timeout_s=30.0), EpisodeFilter(scenarios=("popup",), ids=three))
        status = execute(project, run_id)
    with project.reading() as s:
        rows = s.execute(select(m.Prediction).where(m.Prediction.run_id == run_id)).scalars().all()
    assert len(rows) == 3 and status.errors == 0
    assert all(p.verdict == "gold" for p in rows)  # read from the whole answer: the action comes after the filler
    for p in rows:
        assert len(p.raw_text) < KEPT_CHARS + 100 and characters_cut(p.raw_text) > 5_000_000
        assert p.raw_text.endswith('"}')  # the end of the answer, where the action is, is kept
