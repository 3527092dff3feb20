"""How well judges agree with the human labels, and with each other: what the agreement view shows.

Per judge run, against the reference (judging/labels.py): accuracy, the confusion matrix, precision,
recall, F1 and the false-negative rate (a successful trajectory called a failure: the costly error
when a judge drives retries, the paper found), Cohen's kappa; per policy the success rate under the
judge beside the human rate, and Kendall's tau between the two rankings of the policies. Verdicts
that could not be read (parse failures, failed requests) and trajectories without a reference are
counted apart, never scored as failures.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from statistics import median

from sqlalchemy import select

from desktop_app.judging.agreement_math import (
    binary_confusion,
    pairwise_kappa,
    ranking_agreement,
    success_rates,
)
from desktop_app.judging.labels import labels_of, references, reviews_of, success_of
from desktop_app.judging.trajectories import info_of
from desktop_app.judging.verdicts import verdicts_of
from desktop_app.stats import kappa
from desktop_app.store import models as m
from desktop_app.store.project import Project


def _trajectory_index(project: Project) -> dict[int, tuple[str, str, str]]:
    """episode id -> (key, intent, policy) of every trajectory."""
    with project.reading() as s:
        return {eid: (key, goal, str(info_of(meta).get("policy", "")))
                for eid, key, goal, meta in s.execute(select(m.Episode.id, m.Episode.key, m.Episode.goal,
                                                             m.Episode.meta).where(m.Episode.kind == "trajectory"))}


def human_rates(project: Project) -> dict[str, dict]:
    """Per policy, the success rate by the reference labels."""
    index, refs = _trajectory_index(project), references(project)
    outcomes: dict[str, list[bool]] = {}
    for eid, (_, _, policy) in index.items():
        ref = refs.get(eid)
        if ref is not None and ref.success is not None:
            outcomes.setdefault(policy, []).append(ref.success)
    return success_rates(outcomes)


def run_agreement(project: Project, run_id: int) -> dict:
    return _agreement(verdicts_of(project, run_id), _trajectory_index(project), references(project))


def _agreement(verdicts: dict, index: dict, refs: dict) -> dict:
    """One judge run's figures from its verdicts, the trajectories and their references (no I/O)."""
    counts = Counter()
    pairs, judge_outcomes, human_outcomes, disagreements = [], {}, {}, []
    for eid, verdict in verdicts.items():
        if eid not in index:
            continue
        counts["judged"] += 1
        judged = success_of(verdict.status)
        if verdict.error:
            counts["errors"] += 1
            continue
        if judged is None:
            counts["parse_failures"] += 1
            continue
        counts[verdict.status] += 1
        policy = index[eid][2]
        judge_outcomes.setdefault(policy, []).append(judged)
        ref = refs.get(eid)
        if ref is None or ref.success is None:
            counts["no_reference"] += 1
            continue
        human_outcomes.setdefault(policy, []).append(ref.success)
        pairs.append((ref.success, judged))
        if ref.success != judged:
            disagreements.append(eid)
    confusion = binary_confusion(pairs)
    judge_rates, humans = success_rates(judge_outcomes), success_rates(human_outcomes)  # humans: of those judged
    latencies = [v.latency_ms for v in verdicts.values() if v.latency_ms]
    judged_kappa = kappa.cohen([a for a, _ in pairs], [b for _, b in pairs])
    return {
        "trajectories": counts["judged"], "scored": len(pairs), "errors": counts["errors"],
        "parse_failures": counts["parse_failures"], "no_reference": counts["no_reference"],
        "verdicts": {k: counts[k] for k in ("success", "failure", "impossible")},
        "confusion": confusion.to_json(),
        "kappa": judged_kappa.value, "kappa_note": judged_kappa.why_none,  # why it is None, "" otherwise
        "policies": {p: {"judge": judge_rates.get(p), "human": humans.get(p)}
                     for p in sorted(set(judge_rates) | set(humans))},
        # the paper's comparison: policies ranked by the judge's rate and by the human rate
        "ranking": ranking_agreement({p: r["rate"] for p, r in humans.items()},
                                     {p: r["rate"] for p, r in judge_rates.items()}),
        "disagreements": disagreements,
        "latency_ms_median": median(latencies) if latencies else None,
    }


def annotator_agreement(project: Project) -> dict:
    """Cohen's kappa between every two annotators over the trajectories both labelled (outcomes as given)."""
    ratings = {eid: {a: label.outcome for a, label in by.items()} for eid, by in labels_of(project).items()}
    return pairwise_kappa(ratings)


def agreement_report(project: Project, run_ids: list[int]) -> dict:
    """Everything the agreement view and `screenlab judge agreement` show, for these judge runs."""
    index, refs = _trajectory_index(project), references(project)
    runs = {rid: _agreement(verdicts_of(project, rid), index, refs) for rid in run_ids}
    reference = Counter("none" if r.success is None else ("success" if r.success else "failure")
                        for r in refs.values())
    return {"trajectories": len(index), "reference": dict(reference),
            "corrected": sum(1 for r in refs.values() if r.source == "review"),
            "annotators": annotator_agreement(project), "human_rates": human_rates(project), "runs": runs}


@dataclass(frozen=True)
class Disagreement:
    run_id: int
    episode_id: int
    key: str
    intent: str
    policy: str
    reference: bool
    judged: str
    thoughts: str
    review: str  # "" | accept | override
    tags: tuple[str, ...]


def disagreements(project: Project, run_id: int) -> list[Disagreement]:
    """The trajectories where the run's verdict differs from the reference, with its reasoning and any review
    (a trajectory whose reference was corrected by accepting this judge no longer disagrees)."""
    index, refs = _trajectory_index(project), references(project)
    verdicts = verdicts_of(project, run_id)
    reviews = reviews_of(project, [run_id])
    out = []
    for eid in _agreement(verdicts, index, refs)["disagreements"]:
        key, intent, policy = index[eid]
        review = reviews.get((run_id, eid))
        out.append(Disagreement(run_id, eid, key, intent, policy, bool(refs[eid].success), verdicts[eid].status,
                                verdicts[eid].thoughts, review.decision if review else "",
                                review.tags if review else ()))
    # reviewed ones where the human label stood still disagree; list them after the open ones
    return sorted(out, key=lambda d: (d.review != "", d.episode_id))


def summary_lines(metrics: dict) -> list[str]:
    c = metrics["confusion"]
    lines = [f"{metrics['trajectories']} trajectories judged, {metrics['scored']} against a human reference"
             + (f"; {metrics['parse_failures']} parse failures" if metrics["parse_failures"] else "")
             + (f"; {metrics['errors']} failed requests" if metrics["errors"] else "")
             + (f"; {metrics['no_reference']} without a human reference (no usable label, or a tie)" if metrics["no_reference"] else ""),
             f"accuracy {pct(c['accuracy'])}  precision {pct(c['precision'])}  recall {pct(c['recall'])}  "
             f"F1 {pct(c['f1'])}  false negatives {pct(c['fnr'])}  kappa {_num(metrics['kappa'])}",
             f"TP {c['tp']}  FP {c['fp']}  TN {c['tn']}  FN {c['fn']}"]
    if metrics["kappa"] is None and metrics.get("kappa_note"):
        lines.append(f"kappa -: {metrics['kappa_note']}")
    ranking = metrics["ranking"]
    if ranking["n"] >= 2:
        lines.append(f"policy ranking vs humans: Kendall tau-b {_num(ranking['tau_b'])} over {ranking['n']} policies")
    return lines


def pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
