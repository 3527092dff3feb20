"""The response cache and sampling models (issue 39): a sampling judge is asked once per trial, --no-cache
reaches the server for judges too, a deterministic judge is still answered from the cache. End to end
through the CLI, a real browser and the real openai client against the local test server."""

from __future__ import annotations

import json

import pytest

from desktop_app import api
from desktop_app.cli.main import main
from desktop_app.store.project import Project

from openai_server import FakeOpenAI, Response, user_text
from vaf_pages import write_shop

CLICK = "Thought: On this screen I see these laptops: Alpha 14 laptop. The first one is the best.\n" \
        "Action: click(start_box='(700,250)')"


@pytest.fixture
def original_only(tmp_path, monkeypatch, renderer):
    """A study whose only accepted variant is its original page: one variant to run trials on."""
    monkeypatch.setenv("SCREENLAB_TEST_KEY", "sk-test")
    path = tmp_path / "p"
    with Project.init(path) as project:
        page = api.vaf_page(write_shop(tmp_path / "shop"), "#target", "shop", target_name="Alpha 14 laptop",
                            category="laptop", page_type="laptop shop's results", item_plural="laptops")
        from desktop_app.vaf.study import generate_study

        # the variant waits for review, so runs take only the original (accepted as it is)
        assert generate_study(project, renderer, page, api.vaf_settings()[:1]).added[0] == "original"
    return path


def is_judge(body: dict) -> bool:
    return "semantic_understanding_score" in user_text(body)


def every_request_differs(body: dict, n: int) -> Response:
    """The agent clicks the first card at once, in the same words every trial (so every trial's judge prompt is
    the same); the judge answers each request differently, as a sampling model does: mentioned at requests
    1, 5, 9, ... (agent and judge requests alternate, so every other judge request says mentioned)."""
    if is_judge(body):
        return Response(text=json.dumps({"semantic_understanding_score": int(n % 4 == 1), "reasoning": f"request {n}"}))
    return Response(text=CLICK)


def add_profiles(server, judge_temperature: float) -> None:
    assert main(["agents", "add", "browser", "--base-url", server.base_url, "--model", "m", "--convention",
                 "point-px", "--api-key-env", "SCREENLAB_TEST_KEY", "--replace", "--concurrency", "1"]) == 0
    assert main(["agents", "add", "judge", "--base-url", server.base_url, "--model", "j", "--temperature",
                 str(judge_temperature), "--api-key-env", "SCREENLAB_TEST_KEY", "--replace"]) == 0


def test_a_sampling_judge_is_asked_once_per_trial_and_each_verdict_is_its_own(original_only):
    with FakeOpenAI(every_request_differs) as server:
        add_profiles(server, judge_temperature=0.6)
        assert main(["run", str(original_only), "--protocol", "browse", "--agent", "browser", "--trials", "10",
                     "--judge", "judge"]) == 0
        judge_requests = [b for b in server.requests if is_judge(b)]
        assert len(judge_requests) == 10
        assert len({user_text(b) for b in judge_requests}) == 1  # the same prompt ten times: ten draws
        assert all(b["temperature"] == 0.6 for b in judge_requests)
        with Project.open(original_only) as project:
            run_id = api.runs(project)[-1].id
            trials = api.vaf_trials(project, run_id, "vaf/shop/original")
        assert len(trials) == 10
        assert len({t["judge"]["reasoning"] for t in trials}) == 10  # no verdict came from another trial
        assert sorted(t["mention"] for t in trials) == [0] * 5 + [1] * 5
        # a resumed run replays what it has: nothing is asked again
        asked = len(server.requests)
        assert main(["run", str(original_only), "--resume", str(run_id)]) == 0
        assert len(server.requests) == asked


def test_a_deterministic_judge_is_answered_from_the_cache_and_no_cache_asks_everyone(original_only):
    with FakeOpenAI(every_request_differs) as server:
        add_profiles(server, judge_temperature=0)
        browse = ["run", str(original_only), "--protocol", "browse", "--agent", "browser", "--trials", "3",
                  "--judge", "judge", "--temperature", "0", "--top-p", "1"]
        assert main(browse) == 0
        # temperature 0: the same prompt is the same answer whichever trial asks, so each is asked once
        assert sum(map(is_judge, server.requests)) == 1 and len(server.requests) == 2
        first = len(server.requests)
        assert main(browse) == 0  # a repeated run: every answer from the cache
        assert len(server.requests) == first
        assert main([*browse, "--no-cache"]) == 0  # every request reaches the server, the judge's too
        fresh = server.requests[first:]
        assert sum(map(is_judge, fresh)) == 3 and len(fresh) == 6
    with Project.open(original_only) as project:
        runs = api.runs(project)[-3:]
        cached = [api.vaf_results(project, [r.id])[r.id] for r in runs]
        assert [c["tmr"]["n"] for c in cached] == [3, 3, 3]

