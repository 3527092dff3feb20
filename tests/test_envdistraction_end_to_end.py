"""The authors' numbers through the whole tool: the reference records (their eval_act run on them,
tests/data/envdistraction_reference.jsonl) are imported as EnvDistraction JSONL, answered by the
fake server through the real runner, and `screenlab eval --rules envdistraction` must give each
sample the authors' flags and each run the mean do_metric would print."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
from PIL import Image

from desktop_app.cli.main import main
from desktop_app.store.project import Project

from openai_server import FakeOpenAI, Response, user_text

REFERENCE = Path(__file__).parent / "data" / "envdistraction_reference.jsonl"
CONVENTIONS = ("json-text", "cogagent", "seeclick")


def expected_flags(record: dict) -> tuple[bool, bool, bool] | None:
    """(gold, distracted, available) of the first triple their code appends (what do_metric reads);
    for a sample their code raises on, the value of our documented rule (worked out with their code)."""
    exp = record["expected"]
    if exp["status"] == "excluded":
        return None
    values = dict(v.split("=") for v in (exp.get("eval") or exp["repaired"]["eval"])[:3])
    if "f1_match_gold" in values:
        return values["f1_match_gold"] == "1", values["f1_match_distractor"] == "1", values["f1_available"] == "1"
    if "google_entail_gold" in values:
        return (values["google_entail_gold"] == "1", values["google_entail_bad"] == "1",
                values["google_valid_bad"] == "1")
    return values["location_gold"] == "1", values["location_bad"] == "1", values["location_inv"] == "0"


def fits(record: dict) -> bool:
    """Every box inside its screenshot: the importer refuses the rest (the reference also probes
    edges such as y1 = -0.999, which only the scorer's own tests can use)."""
    for entries in record["label"].values():
        for entry in entries:
            if isinstance(entry, list) and isinstance(entry[1], list):
                x1, y1, x2, y2 = entry[1]
                if not (0 <= x1 <= x2 <= record["width"] and 0 <= y1 <= y2 <= record["height"]):
                    return False
    return True


@pytest.fixture(scope="module")
def reference() -> list[dict]:
    # forced metrics (f1_v2 on a search page, ...) are a Python-API option; the CLI scores with "auto"
    return [r for r in map(json.loads, REFERENCE.read_text().splitlines())
            if r["kind"] == "sample" and not r["forced"] and fits(r)]


def write_dataset(folder: Path, records: list[dict]) -> None:
    """Their JSONL layout: a line per sample, the screenshot at images/<target>/<stem>.png."""
    lines = []
    for r in records:
        shared = folder / "sizes" / f"{r['width']}x{r['height']}.png"
        if not shared.exists():
            shared.parent.mkdir(parents=True, exist_ok=True)
            Image.new("RGB", (r["width"], r["height"]), "white").save(shared)
        # each sample needs its own file name (the episode key); the pixels are shared and stored once
        image = folder / "images" / r["target"] / f"{r['id']}.png"
        image.parent.mkdir(parents=True, exist_ok=True)
        image.symlink_to(shared)
        lines.append({"target": r["target"], "goal": f"Reference sample {r['id']}", "persona": "An ordinary person.",
                      "distractor": {}, "modified_file": f"{r['id']}.html", "label": r["label"]})
    (folder / "data.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


def test_per_sample_flags_and_run_rates_equal_the_authors_scorer(reference, tmp_path, capsys, monkeypatch):
    assert len(reference) >= 700 and {r["target"] for r in reference} == {
        "chatting", "popupbox_phone_1b1i", "popupbox_phone_2b", "popupbox_phone_form", "category_4", "text_google"}
    raw = {f"Reference sample {r['id']}": r["raw"] for r in reference}
    project = tmp_path / "p"
    Project.init(project).close()
    for convention in CONVENTIONS:  # one split per answer convention, so each agent gets its own samples
        mine = [r for r in reference if r["convention"] == convention]
        write_dataset(tmp_path / convention, mine)
        assert main(["import", str(project), str(tmp_path / convention / "data.jsonl"), "--format", "envdistraction",
                     "--split", convention, "-q"]) == 0

    def respond(body, n):
        goal = next(line[6:] for line in user_text(body).splitlines() if line.startswith("Task: "))
        return Response(text=raw[goal])

    monkeypatch.setenv("SCREENLAB_TEST_KEY", "sk-test")
    with FakeOpenAI(respond) as server:
        for convention in CONVENTIONS:
            assert main(["agents", "add", convention, "--base-url", server.base_url, "--model", "m",
                         "--convention", convention, "--api-key-env", "SCREENLAB_TEST_KEY", "--concurrency", "8"]) == 0
            assert main(["run", str(project), "--agent", convention, "--where", f"split={convention}",
                         "--include-unlabelled"]) == 0
    capsys.readouterr()

    assert main(["eval", str(project), "--rules", "envdistraction", "--per-sample"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    by_id = {r["id"]: r for r in reference}
    assert len(rows) == len(reference)
    per_run: dict[int, list[tuple[bool, bool, bool]]] = defaultdict(list)
    mismatches = []
    for row in rows:
        record = by_id[row["episode"]]  # the episode key is the screenshot's stem: the sample id
        want, got = expected_flags(record), row["envdistraction"]
        if want is None:
            assert got["excluded"], record["id"]
            continue
        if (got["gold"], got["distracted"], got["available"]) != want:
            mismatches.append((record["id"], record["raw"][:60], want, got))
        per_run[row["run"]].append(want)
    assert not mismatches, mismatches[:5]

    # do_metric's aggregate of a run: the mean of each flag over the samples it scored
    assert main(["eval", str(project), "--rules", "envdistraction", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    for run_id, wants in per_run.items():
        overall = result["runs"][str(run_id)]["metrics"]["envdistraction"]["overall"]
        n = len(wants)
        assert overall["n"] == n
        assert overall["acc_gold"] == pytest.approx(sum(w[0] for w in wants) / n, abs=1e-6)
        assert overall["acc_dist"] == pytest.approx(sum(w[1] for w in wants) / n, abs=1e-6)
        assert overall["acc_inv"] == pytest.approx(1 - sum(w[2] for w in wants) / n, abs=1e-6)
