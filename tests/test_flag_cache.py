"""The envdistraction flags of the answers scored in Python (text answers, points read from raw answers) are
stored when a run ends and by an evaluation that scored them, and counted from the database next time
(evaluation/flag_cache.py, ADR 0066). What `screenlab eval --rules envdistraction` counts must stay what the
rules give each answer scored on its own, whatever changed in between and whoever changed it: the window's edit
functions, another program on the file, an edit made while an evaluation was scoring."""

from __future__ import annotations

import json
import sqlite3
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop_app.agents.profiles import AgentProfile  # noqa: E402
from desktop_app.evaluation import flag_cache  # noqa: E402
from desktop_app.evaluation.parsed_answers import ROW  # noqa: E402
from desktop_app.evaluation.rows import counted_rows, rule_rows  # noqa: E402
from desktop_app.formats.transfer import import_path  # noqa: E402
from desktop_app.paths import demo_dataset_dir  # noqa: E402
from desktop_app.runs.engine import create_run, execute  # noqa: E402
from desktop_app.store import edits  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402
from desktop_app.store.queries import EpisodeFilter  # noqa: E402

from benchmarks.scale_1m import forget_stored_flags, generate  # noqa: E402
from openai_server import FakeOpenAI, Response  # noqa: E402

N = 800  # 200 answers for each of four agents: json-text, cogagent, seeclick, point-px
TEXT_RUN, COGAGENT_RUN = 1, 2


def _oracle(project: Project, runs: list[int]) -> Counter:
    """Each answer scored on its own by EnvDistractionRules.score (nothing stored is read)."""
    out: Counter = Counter()
    for r in rule_rows(project, runs, "envdistraction", details=True):
        out[(r["run"], r["scenario"], r["verdict"], r["wrong_format"], r.get("gold"), r.get("distracted"),
              r.get("available"), r.get("excluded") or "")] += 1
    return out


def _counted(project: Project, runs: list[int], **options) -> Counter:
    out: Counter = Counter()
    for r, n in counted_rows(project, runs, "envdistraction", **options):
        out[(r["run"], r["scenario"], r["verdict"], r["wrong_format"], r.get("gold"), r.get("distracted"),
              r.get("available"), r.get("excluded") or "")] += n
    return out


KEYS = ("run", "episode_id", "step_id", "scenario", "verdict", "wrong_format", "gold", "distracted", "available")


def _listed(project: Project, runs: list[int], details: bool) -> list[tuple]:
    """The rows the dashboard and reports list (rule_rows), in their order; with details: each answer scored on
    its own, the oracle."""
    return [tuple(r.get(k) for k in KEYS) + (r.get("excluded") or "",)
            for r in rule_rows(project, runs, "envdistraction", details=details)]


def _stored(folder: Path, run: int) -> int:
    db = sqlite3.connect(folder / "screenlab.sqlite")
    try:
        return db.execute("SELECT count(*) FROM prediction WHERE run_id = ? AND cached_flags >> 8 = ?",
                          (run, flag_cache.VERSION)).fetchone()[0]
    finally:
        db.close()


def _verdicts(project: Project, run: int) -> dict[int, str]:
    return {r["step_id"]: r["verdict"] for r in rule_rows(project, [run], "envdistraction", details=True)}


def _sql(folder: Path, *statements: tuple) -> None:
    """Another program's edit of the project file (a sqlite3 shell), not through ScreenLab."""
    db = sqlite3.connect(folder / "screenlab.sqlite")
    with db:
        for statement in statements:
            db.execute(*statement)
    db.close()


def test_a_run_stores_its_text_answers_flags_when_it_ends(tmp_path):
    project = Project.init(tmp_path / "project")
    import_path(project, demo_dataset_dir(), "screenlab")
    elements = iter(["Close", "Accept all", "No thanks", "Subscribe", "nothing on the screen"] * 100)

    def answer(body, n):  # the local stand-in for the model: a text answer naming one element or none
        return Response(text=json.dumps({"action_type": "click", "element": next(elements)}))

    with FakeOpenAI(answer) as server:
        agent = AgentProfile(name="agent-text", base_url=server.base_url, model="m", convention="json-text",
                             concurrency=2, max_retries=0, timeout_s=5.0)
        run_id = create_run(project, agent, EpisodeFilter(review_statuses=("accepted", "pending", "unreviewed")),
                            include_unlabelled=True)
        execute(project, run_id)
    expected = _oracle(project, [run_id])
    assert sum(expected.values()) > 20 and _stored(project.folder, run_id) == sum(expected.values())
    assert _counted(project, [run_id]) == expected
    project.close()


def test_stored_flags_count_what_the_rules_give_after_every_kind_of_change(tmp_path):
    folder = tmp_path / "p"
    generate(folder, N)  # the flags stored as a run stores them
    _sql(folder, ("UPDATE prediction SET answer_flags = answer_flags | ? WHERE run_id = ? AND id % 5 = 0",
                  (ROW, COGAGENT_RUN)))  # CogAgent rows the rules read from the raw answer: scored in Python too
    forget_stored_flags(folder)  # as a project evaluated before flags were stored: the evaluation stores them
    runs = [1, 2, 3, 4]
    with Project.open(folder) as project:
        expected = _oracle(project, runs)
        assert _counted(project, runs) == expected
        text_rows = sum(n for k, n in expected.items() if k[0] == TEXT_RUN)
        assert _stored(folder, TEXT_RUN) == text_rows  # every text answer's flags, errors too
        assert _stored(folder, COGAGENT_RUN) == N // 4 // 5  # the rows read from the raw answer only
        assert _counted(project, runs) == expected  # now from the stored flags
        assert _listed(project, runs, details=False) == _listed(project, runs, details=True)

        verdicts = _verdicts(project, TEXT_RUN)
        gold_step = next(step for step, v in verdicts.items() if v == "gold")
        # the window's way: the gold action the answer named relabelled "other"
        gold_box = next(b.id for b in edits.boxes_of_step(project, gold_step) if b.label == "gold")
        edits.update_boxes(project, [(gold_box, {"label": "other"})], actor="tester")
        changed = _oracle(project, runs)
        assert changed != expected
        assert _listed(project, runs, details=False) == _listed(project, runs, details=True)  # the listed rows
        assert _counted(project, runs) == changed
        assert _verdicts(project, TEXT_RUN)[gold_step] != "gold"

        # another program: a distracted action's text changed, a gold action deleted, a scenario changed
        distracted_step = next(step for step, v in verdicts.items() if v == "distracted")
        other_gold = next(step for step, v in verdicts.items() if v == "gold" and step != gold_step)
        _sql(folder,
             ("UPDATE action_box SET element_text = 'nothing like it' WHERE step_id = ? AND label = 'distracted'",
              (distracted_step,)),
             ("DELETE FROM action_box WHERE step_id = ? AND label = 'gold'", (other_gold,)),
             ("UPDATE episode SET scenario = 'changed' WHERE id = (SELECT episode_id FROM step WHERE id = ?)",
              (distracted_step,)))
        changed_again = _oracle(project, runs)
        assert changed_again != changed
        assert _listed(project, runs, details=False) == _listed(project, runs, details=True)
        assert _stored(folder, TEXT_RUN) == text_rows  # the listing stored what it scored
        assert _counted(project, runs) == changed_again
        # counted in worker processes too, each storing what it scored
        _sql(folder, ("UPDATE action_box SET element_text = 'moved on' WHERE step_id % 7 = 0 AND label = 'gold'",))
        last = _oracle(project, runs)
        assert _counted(project, runs, parallel_min=0, processes=2) == last
        assert _stored(folder, TEXT_RUN) == text_rows
        assert _counted(project, runs) == last


def test_flags_scored_before_an_edit_are_not_stored_after_it(tmp_path):
    """An evaluation reads the answers, another program edits a step while it scores, then it stores what it
    scored: that step's answers keep no flags (the next evaluation scores them again); the others do."""
    folder = tmp_path / "p"
    generate(folder, N, conventions=("json-text",))
    forget_stored_flags(folder)
    with Project.open(folder) as project, project.reading() as s:
        read = s.connection().exec_driver_sql(
            "SELECT id, step_id, cached_flags FROM prediction WHERE verdict != 'error' ORDER BY id").all()
    edited_step = read[10][1]
    _sql(folder, ("UPDATE action_box SET element_text = 'edited meanwhile' WHERE step_id = ?", (edited_step,)))
    value = (flag_cache.VERSION << flag_cache.VERSION_SHIFT) | flag_cache.GOLD | flag_cache.AVAILABLE
    with Project.open(folder) as project:
        stored = flag_cache.store(project, [r[0] for r in read], [r[2] for r in read], [value] * len(read))
    assert stored == len(read) - 1
    db = sqlite3.connect(folder / "screenlab.sqlite")
    after = db.execute("SELECT cached_flags FROM prediction WHERE id = ?", (read[10][0],)).fetchone()[0]
    assert after < 0 and after != read[10][2]  # marked once per action changed, nothing stored
    db.close()


def test_a_locked_database_is_evaluated_and_stores_nothing(tmp_path):
    """Another process holds the write lock (a long import): the evaluation waits a little, gives the right
    counts without storing, and stores them next time."""
    folder = tmp_path / "p"
    generate(folder, N, conventions=("json-text",))
    forget_stored_flags(folder)
    holder = sqlite3.connect(folder / "screenlab.sqlite", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with Project.open(folder) as project:
            expected = _oracle(project, [1])
            assert _counted(project, [1]) == expected
            assert _stored(folder, 1) == 0
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with Project.open(folder) as project:
        assert _counted(project, [1]) == expected
        assert _stored(folder, 1) == sum(expected.values())
