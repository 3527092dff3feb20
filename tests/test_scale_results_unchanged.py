"""What `screenlab eval` and `screenlab export` give on the demo project, pinned byte for byte.

The outputs were recorded from the code as it was before evaluation and export were made to stream
(issue 19: a million predictions); the streamed code must give exactly the same bytes. The project:
the demo samples and two records of each kind of the authors' reference file, runs of four agents (json-text, cogagent, seeclick, point-px) answered by the fake
server with gold, distracted, other, missed, unparsable, "In conclusion" and result-number answers,
(the reference samples get their recorded answers) and one request that always fails; the judge demo's trajectories for the trajectory export.

Record again (only when an output is meant to change, and say why in the commit):
    .venv/bin/python tests/test_scale_results_unchanged.py --record
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import re
import sys
from pathlib import Path

import pytest
from sqlalchemy import select, text

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_envdistraction_end_to_end import REFERENCE, fits, write_dataset  # noqa: E402

from desktop_app.agents.profiles import AgentProfile  # noqa: E402
from desktop_app.cli.main import main  # noqa: E402
from desktop_app.evaluation.rules import RULES  # noqa: E402
from desktop_app.formats import FORMATS  # noqa: E402
from desktop_app.formats.transfer import import_path  # noqa: E402
from desktop_app.paths import demo_dataset_dir, judge_demo_dataset_dir  # noqa: E402
from desktop_app.runs.engine import create_run, execute  # noqa: E402
from desktop_app.store import models as m  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402
from desktop_app.store.queries import EpisodeFilter  # noqa: E402

from openai_server import FakeOpenAI, Response, user_text  # noqa: E402

EXPECTED = Path(__file__).parent / "data" / "expected"
AGENTS = (("json-text", "m-json"), ("cogagent", "m-cog"), ("seeclick", "m-seeclick"), ("point-px", "m-px"))
ALWAYS_FAILS = 5  # the goal (in sorted order) whose request fails every time: an "error" prediction
EVAL_CASES = {f"eval_{name}": ["--rules", name] for name in RULES} | {"eval_default": []}
JUNK = {"json-text": "I would rather not click anything here.", "cogagent": "[[12,abc]]",
        "seeclick": "(0.5+0.1, 0.2)", "point-px": "no idea"}
FIXED_TIME = "2025-01-02 03:04:05.000000"
# CVAT's meta block says when the file was written (formats/cvat_images.py): the only wall-clock time in an export
EXPORT_TIME = re.compile(rb"<(created|updated|dumped)>[^<]*</\1>")
EXPORTERS = [name for name, spec in FORMATS.items() if spec.write]


def reference_samples() -> list[dict]:
    """Two records of each kind of the authors' reference file (target, convention, metric, what their
    code did): excluded samples, plain-string and "<oos>" labels, result numbers, their crashes."""
    groups: dict[tuple, list[dict]] = {}
    for r in map(json.loads, REFERENCE.read_text().splitlines()):
        if r["kind"] == "sample" and not r["forced"] and fits(r):
            group = groups.setdefault((r["target"], r["convention"], r["metric"], r["expected"]["status"]), [])
            if len(group) < 2:
                group.append(r)
    return [r for group in groups.values() for r in group]


def _truth(project: Project) -> dict[str, dict]:
    """goal -> the screen's size and its boxes by label (annotation order)."""
    out: dict[str, dict] = {}
    with project.reading() as s:
        rows = s.execute(select(m.Episode.goal, m.Screen.width, m.Screen.height, m.ActionBox)
                         .join(m.Step, m.Step.episode_id == m.Episode.id)
                         .join(m.Screen, m.Screen.id == m.Step.screen_id)
                         .join(m.ActionBox, m.ActionBox.step_id == m.Step.id)
                         .where(m.Episode.kind == "sample").order_by(m.ActionBox.id)).all()
    for goal, width, height, box in rows:
        entry = out.setdefault(goal, {"size": (width, height), "boxes": {}})
        entry["boxes"].setdefault(box.label, []).append(box)
    return out


def _answer(convention: str, i: int, truth: dict) -> str:
    """The i-th goal's answer under a convention: cycles through hits on each label, misses and junk."""
    boxes, (w, h) = truth["boxes"], truth["size"]
    pick = ("gold", "distracted", "other", "miss", "junk", "gold", "distracted")[i % 7]
    if pick == "junk":
        return JUNK[convention]
    if convention == "json-text":
        if pick == "miss":
            return "Click result 2" if i % 2 else json.dumps({"action_type": "click", "element": "Result 2"})
        labels = boxes.get(pick) or boxes["gold"]
        answer = json.dumps({"action_type": "click", "element": labels[i % len(labels)].element_text})
        return f"Let me look at the page.\nIn conclusion, {answer}" if i % 3 == 0 else answer
    placed = [b for b in boxes.get(pick) or boxes["gold"] if b.x1 is not None]
    box = placed[-1 if i % 2 else 0] if pick != "miss" and placed else None
    x, y = ((box.x1 + box.x2) / 2, (box.y1 + box.y2) / 2) if box is not None else (w - 1, h - 1)
    if convention == "cogagent":
        return f"CLICK(box=[[{int(x / w * 999)},{int(y / h * 999)}]])"
    if convention == "seeclick":
        return f"({x / w:.3f},{y / h:.3f})"
    return f"click({round(x)}, {round(y)})"


def build(folder: Path) -> Path:
    """The demo project with the four agents' runs; returns its folder."""
    with Project.init(folder) as project:
        import_path(project, demo_dataset_dir(), "screenlab")
        import_path(project, judge_demo_dataset_dir(), "unified-trajectory")
        reference = reference_samples()
        write_dataset(folder.with_name(folder.name + "-reference"), reference)
        import_path(project, folder.with_name(folder.name + "-reference") / "data.jsonl", "envdistraction")
        raw = {f"Reference sample {r['id']}": r["raw"] for r in reference}
        truth = _truth(project)
        goals = sorted(truth)

        def respond(body, n):
            found = [g for g in goals if g in user_text(body)]
            goal = max(found, key=len)
            i = goals.index(goal)
            if i == ALWAYS_FAILS:
                return Response(status=500)
            convention = next(c for c, model in AGENTS if model == body["model"])
            answer = raw[goal] if goal in raw else _answer(convention, i, truth[goal])
            return Response(text=answer, prompt_tokens=100 + i, completion_tokens=i)

        with FakeOpenAI(respond) as server:
            for convention, model in AGENTS:
                agent = AgentProfile(name=f"agent-{convention}", base_url=server.base_url, model=model,
                                     convention=convention, concurrency=4, max_retries=0, timeout_s=5.0)
                run_id = create_run(project, agent, EpisodeFilter(review_statuses=("accepted", "pending", "unreviewed")),
                                    include_unlabelled=True)
                execute(project, run_id)
        with project.transaction() as s:  # the only values that differ between builds: times
            s.execute(text("UPDATE prediction SET latency_ms = 100 + (step_id * 7 + run_id * 13) % 900"))
            for table in ("screen", "episode", "action_box", "review_item", "trajectory_label", "run", "prediction"):
                columns = [c[1] for c in s.execute(text(f"PRAGMA table_info({table})")) if c[1].endswith("_at")]
                for column in columns:
                    s.execute(text(f"UPDATE {table} SET {column} = :t WHERE {column} IS NOT NULL"), {"t": FIXED_TIME})
    return folder


def cli(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()


def export_manifest(project: Path, fmt: str, out: Path) -> str:
    """What an export wrote: its summary line (folder name made neutral) and every file's SHA-256."""
    summary = cli("export", str(project), str(out), "--format", fmt).replace(str(out), "OUT")
    files = {p.relative_to(out).as_posix(): hashlib.sha256(EXPORT_TIME.sub(rb"<\1>TIME</\1>", p.read_bytes())).hexdigest()
             for p in sorted(out.rglob("*")) if p.is_file()}
    return json.dumps({"summary": summary, "files": files}, indent=1, ensure_ascii=False) + "\n"


def outputs(folder: Path, scratch: Path) -> dict[str, str]:
    """Every pinned output by file name."""
    project = str(folder)
    out = {f"{name}.json": cli("eval", project, "--json", *args) for name, args in EVAL_CASES.items()}
    out["per_sample_default.jsonl"] = cli("eval", project, "--per-sample")
    out |= {f"per_sample_{name}.jsonl": cli("eval", project, "--per-sample", "--rules", name) for name in RULES}
    out |= {f"export_{fmt}.json": export_manifest(folder, fmt, scratch / fmt) for fmt in EXPORTERS}
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(the project's folder, the pinned outputs of it as built)."""
    base = tmp_path_factory.mktemp("pinned")
    with pytest.MonkeyPatch.context() as mp:  # the user's folders stay untouched (response cache, settings)
        for key in ("DATA", "CONFIG", "LOG"):
            mp.setenv(f"SCREENLAB_{key}_DIR", str(base / key.lower()))
        mp.setenv("SCREENLAB_USER", "tester")
        folder = build(base / "project")
        yield folder, outputs(folder, base / "exports")


@pytest.fixture(scope="module")
def pinned(built):
    return built[1]


def _check(pinned: dict[str, str], name: str) -> None:
    expected = EXPECTED / name
    assert expected.exists(), f"no recorded output {expected}: record with `python {Path(__file__).name} --record`"
    got, want = pinned[name], expected.read_text(encoding="utf-8")
    if got != want:
        diff = [f"line {i + 1}:\n  got  {a[:300]}\n  want {b[:300]}"
                for i, (a, b) in enumerate(zip(got.splitlines(), want.splitlines(), strict=False)) if a != b]
        pytest.fail(f"{name} changed ({len(got.splitlines())} lines, recorded {len(want.splitlines())}); "
                    + "\n".join(diff[:5]))


@pytest.mark.parametrize("name", [f"{n}.json" for n in EVAL_CASES])
def test_eval_metrics_are_unchanged(pinned, name):
    _check(pinned, name)


def test_eval_per_sample_rows_are_unchanged(pinned):
    _check(pinned, "per_sample_default.jsonl")


@pytest.mark.parametrize("rules", list(RULES))
def test_per_sample_rows_under_one_rule_set_are_those_rows_without_the_others(pinned, rules):
    both = [json.loads(line) for line in pinned["per_sample_default.jsonl"].splitlines()]
    want = [json.dumps({k: v for k, v in row.items() if k == rules or k not in RULES}, ensure_ascii=False)
            for row in both]
    assert pinned[f"per_sample_{rules}.jsonl"].splitlines() == want


# The answers are parsed once, when the runs write them (ADR 0052), and eval scores the parsed columns. The same
# outputs must come from a project whose answers were never parsed (one made before: the first eval parses
# them) and from the raw answers themselves (what scoring does for a row whose parse it cannot use).
UNPARSED = {"never parsed": "UPDATE prediction SET answer_x = NULL, answer_y = NULL, answer_tokens = NULL, "
                            "answer_flags = NULL",
            "read from the raw answers": "UPDATE prediction SET answer_flags = answer_flags | 2"}  # parsed_answers.ROW


@pytest.mark.parametrize("how", list(UNPARSED))
def test_eval_gives_the_pinned_outputs_whether_or_not_the_answers_were_parsed(built, how, monkeypatch):
    folder = built[0]
    for key in ("DATA", "CONFIG", "LOG"):
        monkeypatch.setenv(f"SCREENLAB_{key}_DIR", str(folder.parent / key.lower()))
    with Project.open(folder) as project, project.transaction() as s:
        assert s.execute(text("SELECT count(*) FROM prediction WHERE answer_flags IS NULL")).scalar() == 0
        s.execute(text(UNPARSED[how]))
    for name, args in EVAL_CASES.items():
        got = {f"{name}.json": cli("eval", str(folder), "--json", *args)}
        _check(got, f"{name}.json")
    with Project.open(folder) as project, project.reading() as s:  # parsed by the first eval, or kept as set
        assert s.execute(text("SELECT count(*) FROM prediction WHERE answer_flags IS NULL")).scalar() == 0


@pytest.mark.parametrize("fmt", EXPORTERS)
def test_every_export_format_writes_the_same_files(pinned, fmt):
    _check(pinned, f"export_{fmt}.json")


def test_the_pinned_project_exercises_every_outcome(pinned):
    """The recording means something only if the runs hit every verdict, wrong formats and a failure."""
    rows = [json.loads(line) for line in pinned["per_sample_default.jsonl"].splitlines()]
    assert {r["convention"] for r in rows} == {c for c, _ in AGENTS}
    for name in RULES:
        assert {r[name]["verdict"] for r in rows} >= {"gold", "distracted", "other", "invalid"}, name
    assert any(r["wrong_format"] for r in rows) and any(r["verdict"] == "error" for r in rows)
    assert any(r["envdistraction"]["how"] == "result-id" for r in rows)
    assert any(r["envdistraction"]["excluded"] for r in rows)


if __name__ == "__main__":
    import tempfile

    if sys.argv[1:] != ["--record"]:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as tmp:
        import os

        for key in ("DATA", "CONFIG", "LOG"):
            os.environ[f"SCREENLAB_{key}_DIR"] = str(Path(tmp) / key.lower())
        os.environ["SCREENLAB_USER"] = "tester"
        EXPECTED.mkdir(parents=True, exist_ok=True)
        for name, content in outputs(build(Path(tmp) / "project"), Path(tmp) / "exports").items():
            if name.startswith("per_sample_") and name != "per_sample_default.jsonl":
                continue  # checked against the default's rows
            (EXPECTED / name).write_text(content, encoding="utf-8")
            print(f"recorded {EXPECTED / name} ({len(content):,} characters)")
