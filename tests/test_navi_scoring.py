"""Dual-Stream rules on hand-made episodes, with the expected metrics computed by hand."""

import pytest

from desktop_app.agents.actions import ParsedAction
from desktop_app.navi.scoring import GoldStep, StepOptions, score_episode, step_correct, summarize

BOXES = [(0, 0, 100, 50), (0, 100, 100, 150), (0, 200, 100, 250), (0, 300, 100, 350)]
GOLDS = [GoldStep(i, "click", box, width=400, height=800) for i, box in enumerate(BOXES)]
REFERENCE = {2: "Which size do you need?"}


def ok(step):
    box = BOXES[step]
    return ParsedAction(raw="", action_type="click", point=((box[0] + box[2]) / 2, (box[1] + box[3]) / 2))


WRONG = ParsedAction(raw="", action_type="click", point=(300, 790))


def ask(question):
    return ParsedAction(raw="", action_type="ask", text=question)


def test_on_time_early_late_missing_and_extra_asks():
    on_time = score_episode(GOLDS, [ok(0), ok(1), ask("Which size do you need?"), ok(3)], {2: ok(2)}, [2], REFERENCE)
    early = score_episode(GOLDS, [ok(0), ask("What size?"), ok(2), ok(3)], {1: ok(1)}, [2], REFERENCE)
    late = score_episode(GOLDS, [ok(0), ok(1), WRONG, ask("Size?")], {3: ok(3)}, [2], REFERENCE)
    missing = score_episode(GOLDS, [ok(0), ok(1), WRONG, ok(3)], {}, [2], REFERENCE)
    extra = score_episode(GOLDS[:2], [ask("Anything else?"), ok(1)], {0: ok(0)}, [])

    assert (on_time.tp, on_time.fp, on_time.fn, on_time.tn, on_time.correct) == (1, 0, 0, 3, [True] * 4)
    assert (early.tp, early.fp, early.fn, early.tn, early.correct) == (1, 0, 0, 2, [True] * 4)
    assert "early" in early.events[0]
    assert (late.tp, late.fp, late.fn, late.tn, late.correct) == (0, 1, 1, 2, [True, True, False, True])
    assert late.events == ["missed ASK at step 2", "ASK at step 3: late"]
    assert (missing.tp, missing.fp, missing.fn, missing.tn) == (0, 0, 1, 3)
    assert (extra.tp, extra.fp, extra.fn, extra.tn, extra.correct) == (0, 1, 0, 1, [True, True])

    m = summarize([on_time, early, late, missing, extra])
    assert m["ssr"] == pytest.approx((1 + 1 + 0.75 + 0.75 + 1) / 5)  # 0.9
    assert m["sr"] == pytest.approx(3 / 5)
    assert m["ssr_before_ask"] == pytest.approx(1.0)  # steps 0-1 of the four episodes with an ASK step
    assert m["ssr_after_ask"] == pytest.approx((1 + 1 + 0.5 + 0.5) / 4)
    ask_m = m["ask"]
    assert (ask_m["tp"], ask_m["fp"], ask_m["fn"], ask_m["tn"]) == (2, 2, 2, 11)
    assert (ask_m["precision"], ask_m["recall"], ask_m["f1"]) == (0.5, 0.5, 0.5)
    assert ask_m["fpr"] == pytest.approx(2 / 13, abs=1e-6)
    # "Which size do you need?" matches itself (1.0); "What size?": P 1/2, R 1/5 -> F1 2/7
    assert m["question_f1"] == pytest.approx((1 + 2 / 7) / 2, abs=1e-6)


def test_an_ask_that_is_never_answered_leaves_the_step_wrong():
    score = score_episode(GOLDS, [ok(0), ok(1), ask("Which size?"), ok(3)], {}, [2], REFERENCE)
    assert score.tp == 1 and score.correct == [True, True, False, True]


def test_step_correctness_by_action_kind():
    point = GoldStep(0, "click", (100, 100, 100, 100), is_point=True, width=300, height=400)  # diagonal 500
    near = ParsedAction("", "click", point=(140, 130))  # 50 px from the gold point
    assert step_correct(near, point)  # default 0.14 of the 500 px diagonal = 70 px
    assert not step_correct(near, point, StepOptions(distance=0.05))  # 25 px
    assert not step_correct(ParsedAction("", "click", point=(160, 180)), point)  # 100 px
    typed = GoldStep(1, "type", text="Blue running shoes")
    assert step_correct(ParsedAction("", "type", text="blue running shoes"), typed)
    assert not step_correct(ParsedAction("", "type", text="running"), typed)
    assert not step_correct(ParsedAction("", "type", text="blue running shoe"), typed, StepOptions(fuzzy_text=False))
    scroll = GoldStep(2, "scroll", direction="down")
    assert step_correct(ParsedAction("", "scroll", extra={"direction": "down"}), scroll)
    assert not step_correct(ParsedAction("", "scroll", extra={"direction": "up"}), scroll)
    assert step_correct(ParsedAction("", "press_back"), GoldStep(3, "navigate_back"))
    assert step_correct(ParsedAction("", "open_app", extra={"app": "Clock"}), GoldStep(4, "open_app", app="Clock"))
    assert not step_correct(ParsedAction("", "click", point=(1, 1)), GoldStep(5, "scroll", direction="down"))
