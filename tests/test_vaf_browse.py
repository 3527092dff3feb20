"""Browsing trials (the `browse` protocol): answers read, scrolls clamped, clicks mapped to the page and
scored, the judge's replies read; end to end through the real openai client against a local server."""

from __future__ import annotations

import json
import re

import pytest

from desktop_app import api
from desktop_app.cli.main import main
from desktop_app.store.project import Project
from desktop_app.vaf import browse, prompts
from desktop_app.vaf.pages import PageSpec
from desktop_app.vaf.settings import Setting

from openai_server import FakeOpenAI, Response, user_text
from vaf_pages import write_shop


@pytest.mark.parametrize("convention, text, kind, point, direction", [
    ("point-px", "Thought: more below.\nAction: scroll(start_box='(640,600)', direction='down')", "scroll", None, "down"),
    ("point-px", "Thought: ok\nAction: scroll(start_box=\"(640,600)\", direction=\"UP\")", "scroll", None, "up"),
    ("point-px", "Thought: that one\nAction: click(start_box='(700,250)')", "click", (700, 250), ""),
    ("uitars", "Thought: that one\nAction: click(start_box='<|box_start|>(500,500)<|box_end|>')", "click", (640, 600), ""),
    ("point-px", "Thought: type\nAction: type(content='laptop')", "invalid", None, ""),
    ("point-px", "Thought: sideways\nAction: scroll(start_box='(640,600)', direction='left')", "invalid", None, ""),
    ("point-px", "I like the first laptop.", "invalid", None, ""),
])
def test_an_answer_is_read_in_the_papers_syntax_and_the_agents_coordinate_space(convention, text, kind, point,
                                                                                  direction):
    action = browse.read_answer(text, convention)
    assert action.kind == kind
    assert action.direction == direction
    if point:
        assert action.point == pytest.approx(point)
    if kind == "invalid":
        assert action.error  # says why: only scroll up/down and click count


def test_scrolls_stop_at_the_pages_ends_and_clicks_land_in_page_coordinates():
    assert browse.next_scroll(0, "up", 3000) == 0
    assert browse.next_scroll(1200, "down", 3000) == 1800
    assert browse.next_scroll(1800, "down", 3000) == 1800  # the bottom: 3000 - 1200
    assert browse.next_scroll(1800, "up", 3054) == 1200 and browse.next_scroll(1854, "up", 3054) == 1254
    assert browse.next_scroll(0, "down", 900) == 0  # a page shorter than the window does not scroll
    assert browse.to_page((700, 250), 600) == (700, 850)
    box = (100, 800, 300, 900)
    assert browse.inside((100, 800), box) and browse.inside((300, 900), box)  # the border counts
    assert not browse.inside((301, 850), box)
    items = [{"index": 0, "box": [0, 0, 1000, 1000]}, {"index": 3, "box": [100, 100, 200, 200]}, {"index": 4, "box": None}]
    assert browse.hit_item((150, 150), items) == 3 and browse.hit_item((500, 500), items) == 0
    assert browse.hit_item((2000, 5), items) is None


@pytest.mark.parametrize("reply, score", [
    ('{"semantic_understanding_score": 1, "reasoning": "names the Alpha 14"}', 1),
    ('<think>{"semantic_understanding_score": 0}</think>\n```json\n{"semantic_understanding_score": 1, "reasoning": "x"}\n```', 1),
    ('Here you go: {"reasoning": "not named", "semantic_understanding_score": "0"}', 0),
])
def test_the_judges_json_is_read_after_its_thinking(reply, score):
    assert prompts.read_judge(reply)[0] == score


@pytest.mark.parametrize("reply, said", [
    ('{"semantic_understanding_score": 2}', "is 2, not 0 or 1"),
    ('{"semantic_understanding_score": true}', "is True, not 0 or 1"),
    ("It mentions the laptop, so yes.", "no JSON object"),
    ('{"score": 1}', "no JSON object with semantic_understanding_score"),
])
def test_a_judge_reply_that_cannot_be_read_is_refused_not_guessed(reply, said):
    with pytest.raises(prompts.JudgeReplyError, match=said):
        prompts.read_judge(reply)


def test_the_prompt_shows_the_window_of_earlier_screens_and_tells_older_actions():
    spec = PageSpec("shop", "demo:x", "#t", category="laptop", page_type="shop", item_plural="laptops")
    history = [{"scroll_y": y, "raw": f"answer {i}", "image": b"png", "action": {"kind": "scroll", "direction": "down"}}
               for i, y in enumerate((0, 600, 1200))]
    messages = prompts.browse_messages("v1", spec, 3000, history, (1800, b"now"), window=2)
    images = [p for m in messages if isinstance(m["content"], list) for p in m["content"] if p["type"] == "image_url"]
    assert len(images) == 3  # two earlier screens and the current one
    assert "1. at 0 px: scrolled down" in messages[1]["content"] and "2. at 600" not in messages[1]["content"]
    assert [m["content"] for m in messages if m["role"] == "assistant"] == ["answer 1", "answer 2"]
    assert "bottom of the page, scrolling down does nothing" in messages[-1]["content"][0]["text"]


# -- end to end --------------------------------------------------------------------------------------

SCROLL = "Thought: On this screen I see these laptops: {seen}. I look further.\nAction: scroll(start_box='(640,600)', direction='{d}')"
CLICK = "Thought: On this screen I see these laptops: {seen}. The first one is the best.\nAction: click(start_box='(700,{y})')"


@pytest.fixture
def study(tmp_path, monkeypatch, renderer):
    monkeypatch.setenv("SCREENLAB_TEST_KEY", "sk-test")
    path = tmp_path / "p"
    folder = write_shop(tmp_path / "shop")
    with Project.init(path) as project:
        page = api.vaf_page(folder, "#target", "shop", target_name="Alpha 14 laptop", category="laptop",
                            page_type="laptop shop's results", item_plural="laptops")
        from desktop_app.vaf.study import generate_study

        report = generate_study(project, renderer, page, api.vaf_settings()[:1] + [
            s for s in api.vaf_settings() if s.name in ("order_last", "textColor_dc3545")])
        assert report.added == ["original", "background_ff9800", "textColor_dc3545", "order_last"]
    return path


def browsing_agent(body, n):
    """Scrolls down twice and back up twice, then clicks where the first card sits at the top of the page;
    the variant with the red title is browsed until the step cap. The judge: mentions when the thoughts
    name the Alpha, an unreadable reply once."""
    said = user_text(body)
    if "semantic_understanding_score" in said:
        if "(trial-mark-1)" in said:
            return Response(text="I would say it is mentioned.")
        return Response(text=json.dumps({"semantic_understanding_score": int("Alpha" in said), "reasoning": "."}))
    done = max(int(k) for k in re.findall(r"^Screen (\d+) ", said, re.M)) - 1  # answers given so far
    seen = "Alpha 14 laptop" if n % 2 else "a few laptops"
    if body.get("top_p") != 0.8 or body.get("temperature") != 1.0:
        return Response(text="wrong sampling")
    if done < 2:
        return Response(text=SCROLL.format(seen=seen + (" (trial-mark-1)" if n == 0 else ""), d="down"))
    if done < 4:
        return Response(text=SCROLL.format(seen=seen, d="up"))
    return Response(text=CLICK.format(seen=seen, y=250))


def test_browsing_trials_end_to_end_give_tcr_tmr_and_deltas(study, capsys):
    with Project.open(study) as project:
        assert main(["vaf", "verify", str(study), "--all-pending", "--study", "shop", "accept"]) == 0
        red = api.vaf_variants(project, "shop")[2]
        assert red.setting == "textColor_dc3545"
        api.verify_variant(project, red.key, "reject", "text unreadable")  # the annotator's filter
    with FakeOpenAI(browsing_agent) as server:
        for name, model in (("browser", "m"), ("judge", "j")):
            assert main(["agents", "add", name, "--base-url", server.base_url, "--model", model, "--convention",
                         "point-px", "--api-key-env", "SCREENLAB_TEST_KEY", "--replace"]) == 0
        capsys.readouterr()
        assert main(["run", str(study), "--protocol", "browse", "--agent", "browser", "--trials", "3",
                     "--judge", "judge", "--max-steps", "8"]) == 0
        out = capsys.readouterr().out
        assert "9 samples in 9 units" in out  # 3 verified variants (one rejected) x 3 trials
        browse_requests = [b for b in server.requests if "semantic_understanding_score" not in user_text(b)]
        assert len(browse_requests) == 9 * 5  # down, down, up, up, click
        third = next(b for b in browse_requests if "Screen 3 " in b["messages"][-1]["content"][0]["text"])
        shown = [p for m in third["messages"] if isinstance(m["content"], list) for p in m["content"]
                 if p["type"] == "image_url"]
        assert len(shown) == 3  # two earlier screens (history 2) and the current one
    with Project.open(study) as project:
        run_id = api.runs(project)[-1].id
        metrics = api.vaf_results(project, [run_id])[run_id]
        by = {v["setting"]: v for v in metrics["variants"]}
        assert set(by) == {"original", "background_ff9800", "order_last"}
        assert by["original"]["tcr"]["hits"] == 3 and by["background_ff9800"]["tcr"]["rate"] == 1.0
        assert by["order_last"]["tcr"]["hits"] == 0 and by["order_last"]["delta_tcr"] == -1.0
        low, high = by["order_last"]["tcr"]["ci95"]
        assert low == pytest.approx(0.0, abs=1e-9) and 0.5 < high < 0.6  # Wilson at 0/3
        trials = api.vaf_trials(project, run_id, "vaf/shop/order_last")
        clicked = trials[0]
        assert clicked["ended"] == "click" and clicked["click"] == [700.0, 250.0]  # back at the top: page = screen
        assert [s["scroll_y"] for s in clicked["steps"]] == [0, 600, 1200, 600, 0]
        hit = next(i for i in api.vaf_variants(project, "shop")[-1].items if i["index"] == clicked["hit_item"])
        assert hit["text"].startswith("Beta 15")  # the card that moved up into the target's place
        judged = [t for v in ("original", "background_ff9800", "order_last")
                  for t in api.vaf_trials(project, run_id, f"vaf/shop/{v}")]
        flagged = [t for t in judged if t["judge"].get("failed")]
        assert len(flagged) == 1 and flagged[0]["mention"] is None  # the unreadable reply: flagged, not guessed
        assert metrics["judge_failed"] == 1 and metrics["tmr"]["n"] == 8
        assert metrics["tmr"]["hits"] == sum(t["mention"] == 1 for t in judged)
        # the viewports trials scrolled to are stored once per variant and reused by the next trials
        from desktop_app.vaf.study import step_of

        for y in (0, 600, 1200):
            assert step_of(project, by["original"]["episode_id"], "viewport", y) is not None
    assert main(["vaf", "results", str(study), "--csv", str(study / "vaf.csv"), "--heatmap", str(study / "h.png")]) == 0
    out = capsys.readouterr().out
    assert re.search(r"base\s+original\s+1\.000", out) and re.search(r"order_last\s+0\.000", out)
    assert (study / "h.png").stat().st_size > 1000
    assert main(["vaf", "clicks", str(study), "vaf/shop/order_last", "--run", str(run_id), "--png",
                 str(study / "c.png")]) == 0
    assert "3  Beta 15 laptop" in capsys.readouterr().out


def test_a_failed_request_leaves_the_trial_unwritten_and_resume_asks_only_it(study, capsys):
    calls = {"n": 0}

    def flaky(body, n):
        calls["n"] += 1
        if calls["n"] == 2:
            return Response(status=400)  # not retried: the trial fails, the run goes on
        return Response(text=CLICK.format(seen="Alpha", y=250))

    with FakeOpenAI(flaky) as server:
        assert main(["agents", "add", "browser", "--base-url", server.base_url, "--model", "m", "--convention",
                     "point-px", "--api-key-env", "SCREENLAB_TEST_KEY", "--replace", "--concurrency", "1"]) == 0
        assert main(["run", str(study), "--protocol", "browse", "--agent", "browser", "--trials", "2",
                     "--where", "status=accepted|pending"]) == 0
        with Project.open(study) as project:
            run = api.runs(project)[-1]
            assert run.status == "done_with_errors"
            metrics = api.vaf_results(project, [run.id])[run.id]
            assert metrics["trials"] == 7 and metrics["failed"] == 1  # the failed trial is not a miss
            assert "400" in next(iter(metrics["failures"]))  # and the user can read why
        capsys.readouterr()
        assert main(["eval", str(study), "--run", str(run.id)]) == 0
        assert "1 failed: " in capsys.readouterr().out
        asked = len(server.requests)
        assert main(["run", str(study), "--resume", str(run.id)]) == 0
        assert len(server.requests) == asked + 1
    with Project.open(study) as project:
        assert api.runs(project)[-1].status == "done"
        metrics = api.vaf_results(project, [run.id])[run.id]
        assert metrics["trials"] == 8 and metrics["failed"] == 0


def test_the_browse_protocol_refuses_what_it_cannot_do(study, capsys):
    with FakeOpenAI() as server:
        assert main(["agents", "add", "texty", "--base-url", server.base_url, "--model", "m",
                     "--api-key-env", "SCREENLAB_TEST_KEY", "--replace"]) == 0
        assert main(["run", str(study), "--protocol", "browse", "--agent", "texty"]) == 2
        assert "browsing needs clicks at coordinates" in capsys.readouterr().err
        assert main(["run", str(study), "--protocol", "screen", "--agent", "texty", "--trials", "3"]) == 2
        assert "has no option(s) trials" in capsys.readouterr().err
        assert main(["run", str(study), "--protocol", "browse", "--agent", "texty", "--judge", "nobody"]) == 2
        assert server.requests == []


def test_the_report_holds_the_variant_table_the_ranking_and_the_heatmap(study, capsys):
    with FakeOpenAI(browsing_agent) as server:
        assert main(["agents", "add", "browser", "--base-url", server.base_url, "--model", "m", "--convention",
                     "point-px", "--api-key-env", "SCREENLAB_TEST_KEY", "--replace"]) == 0
        assert main(["run", str(study), "--protocol", "browse", "--agent", "browser", "--trials", "2"]) == 0
    assert main(["report", str(study), "--out", str(study / "report")]) == 0
    import csv

    rows = list(csv.DictReader((study / "report" / "vaf_variants.csv").open()))
    assert [r["variant"] for r in rows] == ["original"]  # the variants were not verified: only the original ran
    assert rows[0]["tcr"] == "1.0" and rows[0]["tmr"] == ""  # no judge: no TMR (not 0)
    assert "| baseline | original | 1.000 | - |" in (study / "report" / "vaf_ranked.md").read_text()
    assert (study / "report" / "vaf_delta_heatmap.png").stat().st_size > 500


def test_a_click_is_scored_on_the_screen_the_agent_saw_sticky_header_included(tmp_path, monkeypatch, renderer, capsys):
    """The target moved into a sticky header stays at the top of every screen: a click there after a
    scroll is on the target, although the target's box at scroll 0 lies 600 px above the clicked page point."""
    monkeypatch.setenv("SCREENLAB_TEST_KEY", "sk-test")
    folder = write_shop(tmp_path / "shop", extra_head="<style>header{position:sticky;top:0;height:auto;z-index:5}"
                                                      "</style>")
    with Project.init(tmp_path / "p") as project:
        from desktop_app.vaf.study import generate_study

        generate_study(project, renderer, api.vaf_page(folder, "#target", "shop"), [Setting("position", "header")])
        header = api.vaf_variants(project, "shop")[1]
        api.verify_variant(project, header.key, "accept")
    x, y = (header.target[0] + header.target[2]) / 2, (header.target[1] + header.target[3]) / 2

    def agent(body, n):
        if "Screen 1 " in body["messages"][-1]["content"][0]["text"]:
            return Response(text=SCROLL.format(seen="Alpha", d="down"))
        if "Screen 2 " in body["messages"][-1]["content"][0]["text"]:
            return Response(text=f"Thought: the Alpha at the top.\nAction: click(start_box='({x:.0f},{y:.0f})')")
        return Response(text="Thought: far below.\nAction: click(start_box='(640,1900)')")

    with FakeOpenAI(agent) as server:
        assert main(["agents", "add", "browser", "--base-url", server.base_url, "--model", "m", "--convention",
                     "point-px", "--api-key-env", "SCREENLAB_TEST_KEY", "--replace"]) == 0
        assert main(["run", str(tmp_path / "p"), "--protocol", "browse", "--agent", "browser", "--trials", "1",
                     "--where", "id=" + str(header.episode_id)]) == 0
    with Project.open(tmp_path / "p") as project:
        run_id = api.runs(project)[-1].id
        trial = api.vaf_trials(project, run_id, header.key)[0]
    assert trial["target_click"] and trial["click"] == [pytest.approx(x, abs=1), pytest.approx(y + 600, abs=1)]


def test_a_click_outside_the_screen_is_not_a_click():
    assert browse.read_answer("Thought: below\nAction: click(start_box='(640,1900)')", "point-px").kind == "invalid"
    assert browse.read_answer("Action: click(start_box='(500,1500)')", "uitars").error.startswith("a click at (640,1800)")
    assert browse.read_answer("Action: click(start_box='(-20,100)')", "point-px").kind == "invalid"


@pytest.mark.parametrize("convention, said, point", [
    ("point-px", "pixels of the 1280 x 1200 screenshot", "(640,600)"),
    ("uitars", "grid from (0,0) at the top left of the screenshot to (1000,1000)", "(500,500)"),
    ("point-rel1", "fractions of the screenshot's width and height", "(0.5,0.5)"),
])
def test_the_prompt_says_the_agents_coordinate_space(convention, said, point):
    spec = PageSpec("shop", "demo:x", "#t")
    messages = prompts.browse_messages("v1", spec, 3000, [], (0, b"png"), window=2, convention=convention)
    assert said in messages[0]["content"] and f"scroll(start_box='{point}', direction='down')" in messages[0]["content"]
