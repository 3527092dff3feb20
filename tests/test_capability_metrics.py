"""Sphinx capability metrics on small cases worked out by hand (in the comments)."""

from __future__ import annotations

import pytest

from desktop_app.capability.evaluators import TaskScore
from desktop_app.capability.metrics import (
    CompletionItem,
    GroundingItem,
    ProbeAnswers,
    Rate,
    RunOutcome,
    TaskOutcome,
    completion_scores,
    completion_truth,
    end_to_end,
    focused_context_failure_rate,
    follows_focused_format,
    format_error_rate,
    grounding_accuracy,
    grounding_hit,
    probe_accuracy,
    read_bq,
    read_completion,
    read_mcq,
    repetition_rate,
)


def test_rate_has_wilson_interval_and_none_over_nothing():
    # scipy.stats.binomtest(3, 5).proportion_ci(method="wilson"): (0.2307243, 0.8823792)
    assert Rate(3, 5).rate == 0.6 and Rate(3, 5).ci95 == pytest.approx((0.2307243, 0.8823792), abs=1e-7)
    assert Rate(0, 0).rate is None and Rate(0, 0).ci95 is None
    assert Rate(0, 0).as_dict() == {"hits": 0, "n": 0, "format_errors": 0, "rate": None, "ci95": None}


# -- knowledge probing ----------------------------------------------------------------------------------
@pytest.mark.parametrize("answer, strict, authors", [
    ("B", "B", "B"), (" b. ", "B", None), ("B.", "B", None), ("E", None, None), ("B, because", None, None),
    ("", None, None), (None, None, None),
])
def test_read_mcq(answer, strict, authors):
    assert read_mcq(answer) == strict
    assert read_mcq(answer, "authors") == authors


@pytest.mark.parametrize("answer, strict, authors", [
    ("T", True, True), ("F", False, False), ("Yes", True, None), ("no.", False, None), (" t\n", True, None),
    ("True", None, None), ("Yes, it is", None, None), ("", None, None),
])
def test_read_bq(answer, strict, authors):
    assert read_bq(answer) is strict
    assert read_bq(answer, "authors") is authors


def test_probe_accuracy_five_replies_per_question_by_level_and_version():
    answers = [
        # Key B: MCQ right; BQs F T F F all right -> 5 of 5.
        ProbeAnswers("intention_level", "B", "B", ["F", "T", "F", "F"]),
        # Key A: MCQ "c" reads C, wrong; BQs: A "Yes" right, B "No" right, C "maybe" unreadable, D "F." right
        # -> 3 of 5, one format error.
        ProbeAnswers("goal", "A", "c", ["Yes", "No", "maybe", "F."]),
        # An app-level question, repaired replies: key D, MCQ D right, BQs all T: only D's right -> 2 of 5.
        ProbeAnswers("app_level", "D", "D", ["T", "T", "T", "T"], version="repaired"),
    ]
    strict = probe_accuracy(answers)
    # goal/original: 8 of 10.
    assert strict["goal"]["original"] == Rate(8, 10, 1)
    assert strict["app"]["repaired"] == Rate(2, 5, 0)
    assert set(strict["goal"]) == {"original"}
    # Authors' exact reading: the second question's "c", "Yes", "No", "maybe", "F." are all unreadable -> 0.
    assert probe_accuracy(answers, "authors")["goal"]["original"] == Rate(5, 10, 5)
    with pytest.raises(ValueError, match="unknown question level"):
        probe_accuracy([ProbeAnswers("ui", "A", "A", ["T", "F", "F", "F"])])


# -- completion judgment ----------------------------------------------------------------------------------
def test_completion_scores_continue_stop_perfect_over_three_tasks():
    truths = {"t1": completion_truth(3), "t2": completion_truth(2), "t3": completion_truth(3)}
    assert truths["t1"] == ["continue", "continue", "stop"]
    predicted = {"t1": ["continue", "continue", "stop"],  # all right
                 "t2": ["continue", "continue"],  # failed to stop
                 "t3": ["stop", "continue", "stop"]}  # stopped too early at step 0
    items = [CompletionItem(task, i, truth, predicted[task][i])
             for task, labels in truths.items() for i, truth in enumerate(labels)]
    score = completion_scores(items)
    # Continue steps: t1 2/2, t2 1/1, t3 1/2 -> 4/5. Stop steps: t1 yes, t2 no, t3 yes -> 2/3.
    # Perfect: t1 only -> 1/3.
    assert score.continue_ == Rate(4, 5)
    assert score.stop == Rate(2, 3)
    assert score.perfect == Rate(1, 3)
    assert score.confusion == {("continue", "continue"): 4, ("continue", "stop"): 1, ("stop", "stop"): 2,
                               ("stop", "continue"): 1}


def test_completion_unreadable_prediction_is_a_counted_miss():
    items = [CompletionItem("t", 0, "continue", None), CompletionItem("t", 1, "stop", "stop")]
    score = completion_scores(items)
    assert score.continue_ == Rate(0, 1, 1) and score.stop == Rate(1, 1) and score.perfect == Rate(0, 1)
    assert score.as_dict()["confusion"][0] == {"truth": "continue", "predicted": None, "count": 1}


@pytest.mark.parametrize("answer, strict, authors", [
    ("The list is shown.\nstop", "stop", "continue"),  # authors: no yes/no -> NO (continue)
    ("Continue.", "continue", "continue"),
    ("stop because done", None, "continue"),
    ("YES", None, "stop"),
    ("Yes, done. No more steps needed.", None, "continue"),  # authors: the later of yes/no wins
    ("I know it is done: yes", None, "stop"),
    ("Not yet", None, "continue"),
])
def test_read_completion(answer, strict, authors):
    assert read_completion(answer) == strict
    assert read_completion(answer, "authors") == authors


# -- grounding --------------------------------------------------------------------------------------------
def test_grounding_accuracy_hits_and_format_errors():
    box = (10, 10, 20, 20)
    items = [
        GroundingItem(tag=4, reference_tag=4),  # same tag: hit
        GroundingItem(tag=3, reference_tag=4),  # miss
        GroundingItem(box, point=(20, 10)),  # on the edge: hit
        GroundingItem(box, point=(21, 15)),  # outside: miss
        GroundingItem(box, point=(15, 15), kind="longclick", reference_kind="click"),  # wrong action: miss
        GroundingItem(box, point=(15, 15), kind="text", reference_kind="input", text="a", reference_text="b"),
        GroundingItem(kind="press", reference_kind="back", format_error=True),  # unparsed: miss
        GroundingItem(kind="home", reference_kind="restart"),  # system actions of one kind: hit
    ]
    assert [grounding_hit(i) for i in items] == [True, False, True, False, False, False, False, True]
    assert grounding_accuracy(items) == Rate(3, 8, 1)


# -- instruction following --------------------------------------------------------------------------------
def element(name, bounds="[0,0][10,10]"):
    return {"resource-id": f"app:id/{name}", "class": "c", "text": name, "content-desc": "", "bounds": bounds}


def test_repetition_rate_over_runs():
    a, b, c = ({"type": "click", "element": element(n, f"[0,{i}][10,{i + 9}]")} for i, n in enumerate("abc"))
    back = {"type": "back", "element": None}
    run1 = [a, b, a, back, back, back, c]
    # i=1 b: new. i=2 a: repeat. i=3 back: new. i=4 back: repeat. i=5 back: repeat, and three backs in a row
    # end the count (the agent stopped there): c is not counted. 3 repeats of 5.
    run2 = [{"type": "input", "element": element("f"), "message": "x"},
            {"type": "input", "element": element("f"), "message": "y"}]  # different text: 0 of 1
    assert repetition_rate([run1, run2]) == Rate(3, 6)
    assert repetition_rate([[a]]) == Rate(0, 0)
    # Same bounds, other text: a repeat for the agent's bounds-only test, not for the reported rate.
    relabelled = {"type": "click", "element": {**element("a", "[0,0][10,9]"), "text": "A!"}}
    assert repetition_rate([[a, relabelled]]) == Rate(0, 1)
    assert repetition_rate([[a, relabelled]], keys=("bounds",)) == Rate(1, 1)


def test_format_error_rate_counts_failed_answers_in_the_denominator():
    # Errors 2; answers requested: 5 + 3 + 0 carried out, plus the 2 that failed -> 2 / 10.
    runs = [RunOutcome(5, False), RunOutcome(3, True), RunOutcome(0, True)]
    assert format_error_rate(runs) == Rate(2, 10)


def test_focused_context_failure_rate():
    answers = ["input [12] [hello]", "Sure: input [12] [hello]", "input [12] [hello]\n",
               "```input [12] [hi]```", "click [3]", "I will type.\ninput [12] [hello]"]
    # Kept: 1 and 3 (whitespace around is fine). Failed: words before it, fences, a click, a second line.
    assert [follows_focused_format(a) for a in answers] == [True, False, True, False, False, False]
    assert focused_context_failure_rate(answers) == Rate(4, 6)
    assert follows_focused_format("click [3]", kind=None)


# -- end to end -------------------------------------------------------------------------------------------
def test_end_to_end_sr_acp_and_length_buckets():
    tasks = [TaskOutcome("t1", TaskScore([True, True]), 2),
             TaskOutcome("t2", TaskScore([True, False]), 5),
             TaskOutcome("t3", TaskScore([False, False, False, True]), 12),
             TaskOutcome("t4", TaskScore([]), 4)]  # no evaluators: a success, left out of ACP
    result = end_to_end(tasks)
    assert result.sr == Rate(2, 4)
    # ACP over t1-t3: (1 + 0.5 + 0.25) / 3 = 0.583333. Sample variance ((5/12)^2 + (1/12)^2 + (4/12)^2) / 2
    # = 0.145833; standard error sqrt(0.145833 / 3) = 0.220479; 1.96 x = 0.432131 -> (0.151202, 1.0 clipped).
    assert result.acp == pytest.approx(0.583333, abs=1e-6)
    assert result.acp_tasks == 3
    assert result.acp_ci95 == pytest.approx((0.151202, 1.0), abs=1e-6)
    # Lengths: 2 -> 1-3, 5 and 4 -> 4-6, 12 -> 11+.
    assert result.sr_by_length == {"1-3": Rate(1, 1), "4-6": Rate(1, 2), "7-10": Rate(0, 0),
                                   "11+": Rate(0, 1)}
    assert end_to_end([]).acp is None and end_to_end([tasks[0]]).acp_ci95 is None
    assert result.as_dict()["sr"]["rate"] == 0.5
