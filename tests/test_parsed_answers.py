"""Answers parsed once (ADR 0052): what a run stores of each answer gives, scored from columns, exactly what the
envdistraction rules give reading the raw answer; old rows are parsed by the first evaluation, and a row whose
parse no longer fits (the episode's scenario was edited since) is read from its raw answer again.

tests/test_eval_columns.py checks the chunked scoring against the rules on the authors' reference records and
tests/test_scale_results_unchanged.py the pinned outputs; this file checks the token F1 done with numpy on
label sets made to hit its corners (close-button synonyms, plain-string and "<oos>" labels, repeated tokens,
scores at the thresholds), the points read once against the rules' readers, and the two ways a parse is redone.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from sqlalchemy import select, text

sys.path.insert(0, str(Path(__file__).resolve().parent))

from desktop_app.agents.profiles import AgentProfile  # noqa: E402
from desktop_app.evaluation.columns import StepActions  # noqa: E402
from desktop_app.evaluation.parsed_answers import CURRENT, ROW, parse_answer  # noqa: E402
from desktop_app.evaluation.rows import counted_rows, rule_rows  # noqa: E402
from desktop_app.evaluation.rules.envdistraction import (  # noqa: E402
    Labels,
    _has_result_ids,
    cogagent_point,
    seeclick_point,
    text_flags,
    threshold_of,
)
from desktop_app.evaluation.rules.envdistraction_f1 import f1_flags, names_results  # noqa: E402
from desktop_app.formats.transfer import import_path  # noqa: E402
from desktop_app.paths import demo_dataset_dir  # noqa: E402
from desktop_app.runs.engine import create_run, execute  # noqa: E402
from desktop_app.store import models as m  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402
from desktop_app.store.queries import EpisodeFilter  # noqa: E402

from openai_server import FakeOpenAI, Response, user_text  # noqa: E402

WORDS = ("close", "Close", "the", "an", "a", "offer", "free", "Button", "click", "input", "ok", "ok", "x", "X",
         "×", "result", "2", "Click result 3", "cross", "<cross>", "mark", "it", "naïve", "the²")
CLOSE = ("Button <cross>", "Button <icon-cross>")
TARGETS = ("popupbox_phone_2b", "chatting", "text_google", "category_4", "shopping")


def _phrase(rng: random.Random, most: int = 5) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, most)))


def _screen(rng: random.Random, step: int, first_box: int) -> list[tuple]:
    """Action rows as evaluation/columns.py loads them with texts: step, label, box, id, text, meta."""
    rows = []
    for k in range(rng.randint(2, 6)):
        label = ("gold", "distracted", "other")[k % 3] if k < 3 else rng.choice(("gold", "distracted", "other"))
        text = rng.choice(CLOSE) if rng.random() < 0.25 else _phrase(rng, 4)
        shape = rng.random()
        box = (10.0, 10.0, 50.0, 30.0) if shape < 0.6 else (None, None, None, None)
        meta = '{"out_of_screen": true}' if box[0] is None and shape < 0.8 else "{}"
        rows.append((step, label, *box, first_box + k, text, meta))
    return rows


def _answer(rng: random.Random, labels: list[str]) -> str:
    element = rng.choice(labels) if rng.random() < 0.5 else _phrase(rng)
    if rng.random() < 0.3:
        element = f"{element} {rng.choice(WORDS)}"
    kind = rng.random()
    if kind < 0.4:
        return json.dumps({"action_type": "click", "element": element})
    if kind < 0.55:
        return f"Thinking.\nIn conclusion, {json.dumps({'action': element})}"
    if kind < 0.7:
        return f'"action_type": "click", "element": "{element}"'
    return element if rng.random() < 0.8 else f"{element} confirmation"


def test_token_f1_with_numpy_gives_the_rules_flags_for_every_answer():
    rng = random.Random(36)
    rows, answers = [], []
    for step in range(1, 400):
        screen = _screen(rng, step, 10 * step)
        rows += screen
        for _ in range(rng.randint(1, 3)):
            answers.append((step, rng.choice(TARGETS), _answer(rng, [r[7] for r in screen])))
    actions = StepActions(rows)
    tokens, thresholds = [], []
    want = []
    for step, target, raw in answers:
        flags = text_flags(raw, target, "f1_v2", Labels(actions.targets(step)))
        want.append((flags.gold, flags.distracted, flags.available))
        tokens.append(parse_answer(raw, "json-text", target, None, None)[2])
        thresholds.append(threshold_of(target))
    at = actions.positions(np.array([a[0] for a in answers], dtype=np.int64))
    gold, distracted, available = f1_flags(tokens, at, np.array(thresholds), actions)
    got = list(zip(gold.tolist(), distracted.tolist(), available.tolist(), strict=True))
    assert got == want
    # the sample means something: every flag both ways, and close-button synonyms among the matches
    assert {g for g, _, _ in want} == {True, False} and {d for _, d, _ in want} == {True, False}
    assert Counter(a for _, _, a in want)[False] > 10
    names = names_results(actions)
    assert names.tolist() == [_has_result_ids(actions.targets(step)) for step in actions.step_ids.tolist()]


def test_points_read_once_are_the_rules_readings():
    answers = ["CLICK(box=[[500,250]])", "[[100,200,300,400]]", "[[12,abc]]", "nothing", "[[-5,1_000]]",
               "[[" + "9" * 30 + ",1]]", "(0.49,0.37)", " (1, 0)", "(True, 0.5)", "[0.1, 0.2, 0.3]",
               "(0.5+0.1, 0.2)", "('a', 0.2)", "(1e999, 0.5)", "(12345678901234567, 0.5)", "{1: 2}", "(0.3"]
    for raw in answers:
        for convention, read in (("cogagent", cogagent_point), ("seeclick", seeclick_point)):
            x, y, tokens, flags = parse_answer(raw, convention, "popupbox_phone_2b", 1280, 800)
            point = read(raw, 1280, 800)
            assert tokens is None and flags >> 8 == CURRENT >> 8
            if flags & ROW:  # the rules read such an answer themselves: no float holds it, or not a number
                assert None in (point.x, point.y) or float(point.x) != point.x or float(point.y) != point.y
                continue
            assert (x, y) == (point.x, point.y), raw
            assert bool(flags & 1) == point.fallback, raw


def _project(tmp_path: Path, convention: str, answer, project: Project | None = None) -> Project:
    project = project or Project.init(tmp_path / "project")
    import_path(project, demo_dataset_dir(), "screenlab")
    with FakeOpenAI(lambda body, n: Response(text=answer(user_text(body)))) as server:
        agent = AgentProfile(name=f"agent-{convention}", base_url=server.base_url, model="m", convention=convention,
                             concurrency=2, max_retries=0, timeout_s=5.0)
        run_id = create_run(project, agent, EpisodeFilter(review_statuses=("accepted", "pending", "unreviewed")),
                            include_unlabelled=True)
        execute(project, run_id)
    return project


def _counts(project: Project, text_metric: str = "auto") -> Counter:
    return Counter({tuple(sorted(row.items())): n for row, n in counted_rows(project, _run_ids(project),
                                                                              "envdistraction", text_metric=text_metric)})


def _run_ids(project: Project) -> list[int]:
    with project.reading() as s:
        return list(s.execute(select(m.Run.id)).scalars())


def _one_by_one(project: Project) -> Counter:
    """The metrics' rows from the rules scoring each prediction on its own (the per-sample path)."""
    rows = rule_rows(project, _run_ids(project), "envdistraction", details=True)
    keys = ("run", "scenario", "verdict", "wrong_format", "gold", "distracted", "available", "excluded")
    return Counter(tuple(sorted((k, r[k]) for k in keys if k in r)) for r in rows)


def test_a_run_stores_each_answer_parsed_and_old_rows_are_parsed_by_the_first_evaluation(tmp_path):
    labels = {}

    def answer(prompt: str) -> str:
        labels.setdefault(prompt, len(labels))
        return json.dumps({"action_type": "click", "element": ("Close", "Accept all", "No thanks")[labels[prompt] % 3]})

    project = _project(tmp_path, "json-text", answer)
    with project.reading() as s:
        stored = s.execute(select(m.Prediction.raw_text, m.Prediction.answer_tokens, m.Prediction.answer_flags)).all()
    assert stored and all(flags >> 8 == CURRENT >> 8 for _, _, flags in stored)
    assert {tokens for _, tokens, _ in stored} >= {"close", "accept all", "no thanks"}
    before = _counts(project)
    assert before == _one_by_one(project)
    with project.transaction() as s:  # a project written before answers were parsed
        s.execute(text("UPDATE prediction SET answer_tokens = NULL, answer_flags = NULL"))
    assert _counts(project) == before
    with project.reading() as s:
        assert s.execute(text("SELECT count(*) FROM prediction WHERE answer_flags IS NULL")).scalar() == 0


def test_a_scenario_edited_after_the_run_is_scored_with_the_answer_pattern_it_has_now(tmp_path):
    """The answer's extraction depends on the episode's scenario (popup: the element pattern; search: the action
    pattern); the parse stored with the old one no longer fits and the raw answer is read again."""
    def answer(prompt: str) -> str:
        return 'Thinking.\nIn conclusion, {"action": "Close", "action_type": "click", "element": "Accept all"}'

    project = _project(tmp_path, "json-text", answer)
    with project.reading() as s:
        assert set(s.execute(select(m.Episode.scenario)).scalars()) >= {"popup", "search"}
    flipped = "CASE scenario WHEN 'popup' THEN 'search' WHEN 'search' THEN 'popup' ELSE scenario END"
    before = _counts(project)
    with project.transaction() as s:
        s.execute(text(f"UPDATE episode SET scenario = {flipped}"))
    got = _counts(project)
    assert got == _one_by_one(project)
    as_before = Counter({tuple((k, v if k != "scenario" else {"popup": "search", "search": "popup"}.get(v, v))
                               for k, v in key): n for key, n in before.items()})
    assert got != as_before  # the pattern matters to these answers: the stale parse would have given as_before
    with project.transaction() as s:  # the parse itself is left as the run wrote it: nothing was rewritten
        assert s.execute(text("SELECT count(*) FROM prediction WHERE answer_flags IS NULL")).scalar() == 0


def test_parsing_on_either_back_end_gives_the_rules_flags(any_project, tmp_path):
    """The parse written with a run and the first evaluation's parse of old rows, on SQLite and PostgreSQL."""
    grid = iter(range(10**6))

    def answer(prompt: str) -> str:
        n = next(grid)
        return f"CLICK(box=[[{(n * 137) % 1000},{(n * 311) % 1000}]])" if n % 5 else "[[12,abc]]"

    project = _project(tmp_path, "cogagent", answer, any_project)
    with project.reading() as s:
        stored = s.execute(select(m.Prediction.answer_x, m.Prediction.answer_flags)).all()
    assert stored and all(flags >> 8 == CURRENT >> 8 for _, flags in stored)
    assert any(x is not None for x, _ in stored) and any(flags & 1 for _, flags in stored)  # points and fallbacks
    before = _counts(project)
    assert before == _one_by_one(project)
    with project.transaction() as s:
        s.execute(text("UPDATE prediction SET answer_x = NULL, answer_y = NULL, answer_flags = NULL"))
    assert _counts(project) == before
    with project.reading() as s:
        assert s.execute(text("SELECT count(*) FROM prediction WHERE answer_flags IS NULL")).scalar() == 0
