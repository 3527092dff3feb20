"""TMR under both denominators (issue 39, ADR 0042), worked by hand: ten trials of one variant, the judge
says "mentioned" four times, "not mentioned" three times and three times something that cannot be read.

    TMR (readable replies)   = 4 / (4 + 3) = 0.571   (the unreadable replies are left out of n)
    TMR (all trials, paper)  = 4 / 10      = 0.400   (an unreadable reply counts as not mentioned)

Checked where a user reads them: the API, `screenlab vaf results`, and `screenlab report`'s files."""

from __future__ import annotations

import csv
import json
import threading

import pytest

from desktop_app import api
from desktop_app.cli.main import main
from desktop_app.evaluation.metrics import wilson
from desktop_app.store.project import Project

from openai_server import FakeOpenAI, Response, user_text
from vaf_pages import write_shop

CLICK = "Thought: On this screen I see these laptops: Alpha 14 laptop. The first one is the best.\n" \
        "Action: click(start_box='(700,250)')"


@pytest.fixture
def judged_run(tmp_path, monkeypatch, renderer):
    monkeypatch.setenv("SCREENLAB_TEST_KEY", "sk-test")
    path = tmp_path / "p"
    with Project.init(path) as project:
        page = api.vaf_page(write_shop(tmp_path / "shop"), "#target", "shop", target_name="Alpha 14 laptop",
                            category="laptop", page_type="laptop shop's results", item_plural="laptops")
        from desktop_app.vaf.study import generate_study

        generate_study(project, renderer, page, api.vaf_settings()[:1])  # the original runs (the variant waits)
    judged, lock = [], threading.Lock()

    def answer(body, n):
        if "semantic_understanding_score" not in user_text(body):
            return Response(text=CLICK)
        with lock:
            j = len(judged)
            judged.append(j)
        if j < 4:
            return Response(text=json.dumps({"semantic_understanding_score": 1, "reasoning": "named"}))
        if j < 7:
            return Response(text=json.dumps({"semantic_understanding_score": 0, "reasoning": "not named"}))
        return Response(text="Hard to say; it seems to talk about a laptop.")  # no JSON: unreadable

    with FakeOpenAI(answer) as server:
        for name, extra in (("browser", ["--convention", "point-px", "--concurrency", "1"]),
                            ("judge", ["--temperature", "0.6"])):
            assert main(["agents", "add", name, "--base-url", server.base_url, "--model", name, *extra,
                         "--api-key-env", "SCREENLAB_TEST_KEY", "--replace"]) == 0
        assert main(["run", str(path), "--protocol", "browse", "--agent", "browser", "--trials", "10",
                     "--judge", "judge"]) == 0
    assert len(judged) == 10
    return path


def test_tmr_by_hand_under_both_denominators(judged_run, capsys):
    with Project.open(judged_run) as project:
        run_id = api.runs(project)[-1].id
        metrics = api.vaf_results(project, [run_id])[run_id]
    original = metrics["variants"][0]
    assert original["setting"] == "original" and original["judge_failed"] == 3 and metrics["judge_failed"] == 3
    for scope in (original, metrics):
        assert (scope["tmr"]["hits"], scope["tmr"]["n"]) == (4, 7)
        assert scope["tmr"]["rate"] == pytest.approx(4 / 7)
        assert (scope["tmr_paper"]["hits"], scope["tmr_paper"]["n"]) == (4, 10)
        assert scope["tmr_paper"]["rate"] == pytest.approx(0.4)
        assert scope["tmr_paper"]["ci95"] == pytest.approx(list(wilson(4, 10)))
    assert metrics["tcr"]["n"] == 10  # the paper's TMR averages over the same trials as TCR

    capsys.readouterr()
    assert main(["vaf", "results", str(judged_run)]) == 0
    out = capsys.readouterr().out
    assert "TMR (readable replies): 0.571 (4/7)" in out
    assert "TMR (all trials, paper): 0.400 (4/10)" in out
    assert "judge replies unreadable: 3" in out

    assert main(["report", str(judged_run), "--out", str(judged_run / "report")]) == 0
    rows = list(csv.DictReader((judged_run / "report" / "vaf_variants.csv").open()))
    assert float(rows[0]["tmr"]) == pytest.approx(4 / 7) and float(rows[0]["tmr_paper"]) == pytest.approx(0.4)
    assert rows[0]["judge_failed"] == "3"
    ranked = (judged_run / "report" / "vaf_ranked.md").read_text()
    assert "| TCR | TMR (readable replies) | TMR (all trials, paper) |" in ranked
    assert "| baseline | original | 1.000 | 0.571 | 0.400 |" in ranked
    assert "3 judge replies unreadable" in ranked
    summary = (judged_run / "report" / "summary.md").read_text()
    assert "TMR (readable replies)" in summary and "57.1 %" in summary
    assert "TMR (all trials, paper)" in summary and "40.0 %" in summary
