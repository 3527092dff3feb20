"""The Sphinx capability metrics (Ran et al. 2025), as pure functions with 95 % Wilson intervals.

  knowledge probing      accuracy over 1 MCQ + 4 BQs per question, by level (goal / app), original and
                         repaired replies
  completion judgment    Continue. / Stop. accuracy per step, Perfect. = tasks with every step right
  grounding              hits / items
  instruction following  repetition rate, format-error rate, focused-context failure rate
  end to end             SR and ACP over tasks, SR by task length

Definitions follow the authors' scripts (github.com/PKU-ASE-RISE/Sphinx: extractor.py, show_complete.py,
parsed_lowlevel.py, eval_instr.py, run_evaluation.py); where ours differ it is said at the function. A rate
over nothing is None (shown as "-"), never 0.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from desktop_app.capability.evaluators import SYSTEM_TYPES, TaskScore, evaluator_type
from desktop_app.capability.grammar import GrammarError, parse_action, same_action
from desktop_app.evaluation.metrics import Z95, wilson

OPTIONS = ("A", "B", "C", "D")
# Our level names and the authors' question_type values.
LEVELS = {"goal": "goal", "app": "app", "intention_level": "goal", "app_level": "app"}
VERSIONS = ("original", "repaired")
READ_MODES = ("strict", "authors")
# Element attributes the authors' reported repetition rate compares (eval_instr.py).
REPORT_KEYS = ("resource-id", "class", "text", "content-desc", "bounds")
LENGTH_BUCKETS = (3, 6, 10)  # SR by reference length: 1-3, 4-6, 7-10, 11+ steps


@dataclass(frozen=True)
class Rate:
    """hits out of n, with the number of answers that could not be read (counted as misses, inside n)."""

    hits: int
    n: int
    format_errors: int = 0

    @property
    def rate(self) -> float | None:
        return self.hits / self.n if self.n else None

    @property
    def ci95(self) -> tuple[float, float] | None:
        return wilson(self.hits, self.n)  # None over no reply

    def as_dict(self) -> dict:
        rate, ci = self.rate, self.ci95
        return {"hits": self.hits, "n": self.n, "format_errors": self.format_errors,
                "rate": None if rate is None else round(rate, 6),
                "ci95": None if ci is None else [round(v, 6) for v in ci]}


def _rate(outcomes: Iterable[bool | None]) -> Rate:
    """True = hit, False = miss, None = unreadable (a miss counted as a format error)."""
    values = list(outcomes)
    return Rate(sum(v is True for v in values), len(values), sum(v is None for v in values))


def _trim(answer: str | None) -> str:
    text = (answer or "").strip()
    return text[:-1].rstrip() if text.endswith(".") else text


# -- knowledge probing ----------------------------------------------------------------------------------
def read_mcq(answer: str | None, mode: str = "strict") -> str | None:
    """The option letter A-D, or None (a format error).

    strict   after trimming whitespace and one final period, exactly one letter A-D (either case)
    authors  the reply exactly "A".."D" as returned, nothing trimmed (their extractor.py; anything else went
             to the repair model)
    """
    if mode == "authors":
        return answer if answer in OPTIONS else None
    _check_mode(mode)
    text = _trim(answer).upper()
    return text if text in OPTIONS else None


def read_bq(answer: str | None, mode: str = "strict") -> bool | None:
    """True for yes, False for no, None for a format error.

    strict   after trimming whitespace and one final period, exactly T, F, Yes or No (either case)
    authors  exactly "T" or "F" as returned (their extractor.py); their older knowledge_probing.py counted
             every reply other than t/T as "no", which hides format errors
    """
    if mode == "authors":
        return {"T": True, "F": False}.get(answer) if isinstance(answer, str) else None
    _check_mode(mode)
    return {"t": True, "yes": True, "f": False, "no": False}.get(_trim(answer).lower())


def _check_mode(mode: str) -> None:
    if mode not in READ_MODES:
        raise ValueError(f"mode must be one of {', '.join(READ_MODES)}, not {mode!r}")


@dataclass(frozen=True)
class ProbeAnswers:
    """One question's five replies: the MCQ, then the BQs for options A, B, C, D in that order."""

    level: str  # goal or app (the authors' intention_level / app_level are accepted)
    key: str  # the right option, A-D
    mcq: str | None
    bq: Sequence[str | None]
    version: str = "original"  # or "repaired" (after the repair model rewrote unreadable replies)


def probe_accuracy(answers: Iterable[ProbeAnswers], mode: str = "strict") -> dict[str, dict[str, Rate]]:
    """{level: {version: Rate}}: correct replies / (5 x questions), as the authors' calc_final counts them
    (each BQ is right when it says yes exactly for the key option)."""
    outcomes: dict[tuple[str, str], list[bool | None]] = {}
    for item in answers:
        level = LEVELS.get(item.level)
        if level is None:
            raise ValueError(f"unknown question level {item.level!r}; one of {', '.join(LEVELS)}")
        if item.key not in OPTIONS or len(item.bq) != len(OPTIONS) or item.version not in VERSIONS:
            raise ValueError(f"a question needs a key A-D, four BQ replies and a version in {VERSIONS}: "
                             f"{item!r}")
        mcq = read_mcq(item.mcq, mode)
        row = [None if mcq is None else mcq == item.key]
        for option, reply in zip(OPTIONS, item.bq, strict=True):
            said = read_bq(reply, mode)
            row.append(None if said is None else said == (option == item.key))
        outcomes.setdefault((level, item.version), []).extend(row)
    out: dict[str, dict[str, Rate]] = {}
    for (level, version), values in sorted(outcomes.items()):
        out.setdefault(level, {})[version] = _rate(values)
    return out


# -- completion judgment ----------------------------------------------------------------------------------
def read_completion(answer: str | None, mode: str = "strict") -> str | None:
    """"continue", "stop" or None (a format error).

    strict   the last non-empty line, after trimming whitespace and one final period, is exactly continue or
             stop (either case), as our prompt asks
    authors  their prompt asks YES (finished) / NO: a reply holding "yes" and "no" takes the one written
             last, and a reply with neither counts as NO. Substrings count ("now", "know" read as no), as in
             their run_complete.py
    """
    if mode == "authors":
        text = (answer or "").lower()
        yes, no = text.rfind("yes"), text.rfind("no")
        return "stop" if yes > no else "continue"
    _check_mode(mode)
    lines = [line for line in (answer or "").splitlines() if line.strip()]
    last = _trim(lines[-1]).lower() if lines else ""
    return last if last in ("continue", "stop") else None


def completion_truth(steps: int) -> list[str]:
    """The labels of a reference trajectory: every step "continue" but the last (its stop action), "stop"."""
    return ["continue"] * (steps - 1) + ["stop"] if steps > 0 else []


@dataclass(frozen=True)
class CompletionItem:
    task: str
    step: int
    truth: str  # continue or stop
    predicted: str | None  # continue, stop, or None for a format error


@dataclass(frozen=True)
class CompletionScore:
    continue_: Rate  # accuracy on the continue steps (the paper's Continue.)
    stop: Rate  # accuracy on the stop steps (Stop.)
    perfect: Rate  # tasks with every step right (Perfect.)
    confusion: dict[tuple[str, str | None], int] = field(default_factory=dict)  # (truth, predicted) -> count

    def as_dict(self) -> dict:
        cells = sorted(self.confusion.items(), key=lambda kv: (kv[0][0], kv[0][1] or ""))
        return {"continue": self.continue_.as_dict(), "stop": self.stop.as_dict(),
                "perfect": self.perfect.as_dict(),
                "confusion": [{"truth": t, "predicted": p, "count": c} for (t, p), c in cells]}


def completion_scores(items: Iterable[CompletionItem]) -> CompletionScore:
    """As the authors' show_complete.py: Stop. over the last steps, Continue. over all others, Perfect. over
    tasks; an unreadable prediction is a miss (the authors' reader never fails, see read_completion)."""
    by_truth: dict[str, list[bool | None]] = {"continue": [], "stop": []}
    tasks: dict[str, bool] = {}
    confusion: Counter = Counter()
    for item in items:
        if item.truth not in by_truth:
            raise ValueError(f"truth must be continue or stop, not {item.truth!r}")
        right = None if item.predicted is None else item.predicted == item.truth
        by_truth[item.truth].append(right)
        tasks[item.task] = tasks.get(item.task, True) and bool(right)
        confusion[(item.truth, item.predicted)] += 1
    return CompletionScore(_rate(by_truth["continue"]), _rate(by_truth["stop"]),
                           Rate(sum(tasks.values()), len(tasks)), dict(confusion))


# -- grounding --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GroundingItem:
    """One grounding answer against its reference action.

    Text modes give tags (`tag`, `reference_tag`): a hit is the same tag. Coordinate modes give `point`: a hit
    is the point inside `box` (edges included). The authors' parsed_lowlevel.py reads element answers as the
    centre of the chosen element inside the reference box: pass that centre as `point` and no tags to score
    their way. When kinds are given they must agree (in the evaluator's names: text is input, home is
    restart), system actions need nothing more, and text actions also need the same text.
    """

    box: tuple[int, int, int, int] | None = None  # the reference element's bounds
    point: tuple[float, float] | None = None
    tag: int | None = None
    reference_tag: int | None = None
    kind: str | None = None
    reference_kind: str | None = None
    text: str | None = None
    reference_text: str | None = None
    format_error: bool = False  # the answer did not parse (or named no element): a miss


def grounding_hit(item: GroundingItem) -> bool:
    if item.format_error:
        return False
    kind = reference = None
    if item.kind is not None and item.reference_kind is not None:
        kind, reference = evaluator_type({"type": item.kind}), evaluator_type({"type": item.reference_kind})
        if kind != reference:
            return False
        if kind in SYSTEM_TYPES:
            return True
    if kind == "input" and (item.text or "") != (item.reference_text or ""):
        return False
    if item.tag is not None and item.reference_tag is not None:
        return item.tag == item.reference_tag
    if item.point is not None and item.box is not None:
        x, y = item.point
        x1, y1, x2, y2 = item.box
        return x1 <= x <= x2 and y1 <= y <= y2
    return False


def grounding_accuracy(items: Iterable[GroundingItem]) -> Rate:
    return _rate(None if item.format_error else grounding_hit(item) for item in items)


# -- instruction following --------------------------------------------------------------------------------
def repetition_rate(runs: Iterable[Sequence[dict]], keys: tuple[str, ...] = REPORT_KEYS) -> Rate:
    """Repeated actions over actions after the first, per eval_instr.py: in each run every action from the
    second on counts once, and is a repeat when it equals (grammar.same_action on `keys`) any earlier action
    of the run; counting stops after the action that makes three equal ones in a row (the agent's run ends
    there)."""
    hits = n = 0
    for run in runs:
        for i in range(1, len(run)):
            n += 1
            hits += any(same_action(run[j], run[i], keys) for j in range(i))
            if i >= 2 and same_action(run[i], run[i - 1], keys) and same_action(run[i], run[i - 2], keys):
                break
    return Rate(hits, n)


@dataclass(frozen=True)
class RunOutcome:
    length: int  # actions carried out
    parse_error: bool  # the run ended on an answer that did not parse


def format_error_rate(runs: Iterable[RunOutcome]) -> Rate:
    """Runs ending in a parse error over the answers requested, per eval_instr.py: the sum of run lengths
    plus one for each failed answer (a run stops at its first format error, so each run has at most one)."""
    runs = list(runs)
    errors = sum(r.parse_error for r in runs)
    return Rate(errors, sum(r.length for r in runs) + errors)


def follows_focused_format(answer: str | None, form: str = "element", kind: str | None = "text") -> bool:
    """A focused-context reply must be the requested action alone: one line (whitespace around it allowed)
    that the grammar reads, of the requested kind when given (the paper's prompt asks for
    `input [123] [some text]`, a text action). The authors published no scorer for this; this is ours."""
    text = (answer or "").strip()
    if not text or "\n" in text:
        return False
    try:
        parsed = parse_action(text, form)
    except GrammarError:
        return False
    return kind is None or parsed.kind == kind


def focused_context_failure_rate(answers: Iterable[str | None], form: str = "element",
                                 kind: str | None = "text") -> Rate:
    """Replies that do not follow the required format, over replies (a failure rate: lower is better)."""
    values = [not follows_focused_format(a, form, kind) for a in answers]
    return Rate(sum(values), len(values))


# -- end to end -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TaskOutcome:
    task: str
    score: TaskScore
    length: int | None = None  # steps of the reference trajectory, for SR by length


@dataclass(frozen=True)
class EndToEnd:
    sr: Rate
    acp: float | None
    acp_ci95: tuple[float, float] | None
    acp_tasks: int  # tasks in ACP (those with at least one evaluator)
    sr_by_length: dict[str, Rate]

    def as_dict(self) -> dict:
        return {"sr": self.sr.as_dict(), "acp": None if self.acp is None else round(self.acp, 6),
                "acp_ci95": None if self.acp_ci95 is None else [round(v, 6) for v in self.acp_ci95],
                "acp_tasks": self.acp_tasks,
                "sr_by_length": {k: v.as_dict() for k, v in self.sr_by_length.items()}}


def end_to_end(tasks: Iterable[TaskOutcome], buckets: Sequence[int] = LENGTH_BUCKETS) -> EndToEnd:
    """SR (share of tasks whose evaluators all hold) and ACP (mean share of evaluators that hold).

    ACP is a mean of proportions, not a count of successes, so its interval is the normal one of a mean
    (t is not used; 1.96 standard errors, clipped to [0, 1]; None below two tasks) rather than Wilson's.
    A task without evaluators counts as a success in SR (as the authors' MainEvaluator has it) and is left
    out of ACP (their evaluate_acp refuses it).
    """
    tasks = list(tasks)
    shares = [t.score.completion for t in tasks if t.score.completion is not None]
    acp = sum(shares) / len(shares) if shares else None
    ci = None
    if len(shares) >= 2:
        spread = math.sqrt(sum((s - acp) ** 2 for s in shares) / (len(shares) - 1) / len(shares))
        ci = (max(0.0, acp - Z95 * spread), min(1.0, acp + Z95 * spread))
    by_length: dict[str, list[bool]] = {label: [] for label in _bucket_labels(buckets)}
    for t in tasks:
        if t.length is not None:
            by_length[_bucket(t.length, buckets)].append(t.score.success)
    return EndToEnd(Rate(sum(t.score.success for t in tasks), len(tasks)), acp, ci, len(shares),
                    {label: Rate(sum(v), len(v)) for label, v in by_length.items()})


def _bucket_labels(buckets: Sequence[int]) -> list[str]:
    labels, low = [], 1
    for high in buckets:
        labels.append(f"{low}-{high}")
        low = high + 1
    return labels + [f"{low}+"]


def _bucket(length: int, buckets: Sequence[int]) -> str:
    labels = _bucket_labels(buckets)
    for label, high in zip(labels, buckets, strict=False):
        if length <= high:
            return label
    return labels[-1]
