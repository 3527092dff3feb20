"""`screenlab eval --rules envdistraction` counts point answers in SQLite (evaluation/point_counts.py, issue 36);
what it counts must be what the rules give each answer scored on its own.

The project is benchmarks/scale_1m.py's (four agents: json-text, cogagent, seeclick, point-px; hits on each
label, misses, unparsable answers, failed requests), then changed where the two readings could part: gold boxes
moved so that points lie exactly on their edges and corners (or a hair outside), boxes emptied (a label
without a box), screens left without a gold or without a distracted label, and CogAgent rows the rules must
read from their raw answers (ROW), which the database leaves to the array path."""

from __future__ import annotations

import sqlite3
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop_app.evaluation.parsed_answers import ROW  # noqa: E402
from desktop_app.evaluation.rows import counted_rows, rule_rows  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402

from benchmarks.scale_1m import generate  # noqa: E402

N = 2000  # 500 answers per agent, each run with a failed request (one in 499)


def _edited(folder: Path) -> None:
    """Gold boxes moved so that the answer's point (as stored: x/y, or answer_x/answer_y as parsed once) lies
    exactly on an edge or a corner, or just outside; some boxes removed or emptied; some rows marked ROW."""
    db = sqlite3.connect(folder / "screenlab.sqlite")
    with db:
        points = list(db.execute(
            "SELECT p.step_id, CASE WHEN p.run_id = 4 THEN p.x ELSE p.answer_x END, "
            "CASE WHEN p.run_id = 4 THEN p.y ELSE p.answer_y END FROM prediction p "
            "WHERE p.run_id IN (2, 3, 4) AND p.verdict != 'error' ORDER BY p.id"))
        for k, (step, x, y) in enumerate(points):
            if x is None or y is None or k % 3:
                continue
            box = [(x, y, x + 50, y + 20), (x - 50, y - 20, x, y), (x - 10, y, x + 10, y + 5), (x, y - 5, x + 9, y),
                   (x + 1e-9, y, x + 50, y + 20), (x - 50, y - 20, x, y - 1e-9)][(k // 3) % 6]
            db.execute("UPDATE action_box SET x1 = ?, y1 = ?, x2 = ?, y2 = ? WHERE step_id = ? AND label = 'gold'",
                       (*box, step))
        db.execute("UPDATE prediction SET answer_flags = answer_flags | ? WHERE run_id = 2 AND id % 7 = 0", (ROW,))
        db.execute("UPDATE action_box SET x1 = NULL, y1 = NULL, x2 = NULL, y2 = NULL WHERE id % 11 = 0")
        db.execute("DELETE FROM action_box WHERE label = 'gold' AND step_id % 13 = 0")
        db.execute("DELETE FROM action_box WHERE label = 'distracted' AND step_id % 17 = 0")
    db.close()


def _oracle(project: Project, runs: list[int]) -> Counter:
    """Each answer scored on its own by EnvDistractionRules.score (rows.rule_rows with details)."""
    out: Counter = Counter()
    for r in rule_rows(project, runs, "envdistraction", details=True):
        out[(r["run"], r["scenario"], r["verdict"], r["wrong_format"], r.get("gold"), r.get("distracted"),
             r.get("available"), r.get("excluded"))] += 1
    return out


def _counted(rows) -> Counter:
    out: Counter = Counter()
    for r, n in rows:
        out[(r["run"], r["scenario"], r["verdict"], r["wrong_format"], r.get("gold"), r.get("distracted"),
             r.get("available"), r.get("excluded"))] += n
    return out


def test_points_counted_by_the_database_are_what_the_rules_give_each_answer(tmp_path):
    generate(tmp_path / "p", N)
    _edited(tmp_path / "p")
    with Project.open(tmp_path / "p") as project:
        runs = [1, 2, 3, 4]
        expected = _oracle(project, runs)
        assert _counted(counted_rows(project, runs, "envdistraction")) == expected
        # in worker processes, each counting a share of every run
        assert _counted(counted_rows(project, runs, "envdistraction", parallel_min=0, processes=2)) == expected
    seen = {(k[0], k[2], bool(k[7]), k[3]) for k in expected}
    for run in (2, 3, 4):  # every outcome was met by the point runs
        assert {(run, "gold", False, False), (run, "distracted", False, False), (run, "other", False, False),
                (run, "invalid", True, False), (run, "invalid", False, True), (run, "error", False, False)} <= seen, run
