"""Metrics of a multi-step (episode protocol) run, recomputed from its stored predictions:
Dual-Stream step and episode success, success before / after the ASK step, ASK timing (navi/scoring), and
the content scores of the matched ASKs' questions (METEOR, CosSim: navi/content_scores)."""

from __future__ import annotations

from sqlalchemy import select

from desktop_app.agents.actions import ParsedAction
from desktop_app.evaluation.rows import parsed_action
from desktop_app.navi.content_scores import content_scores
from desktop_app.navi.model import navi_of
from desktop_app.navi.scoring import GoldStep, StepOptions, score_episode, summarize
from desktop_app.runs.protocols.base import episode_units
from desktop_app.runs.selection import RunSelection
from desktop_app.runs.work import WorkItem, load_items
from desktop_app.store import models as m
from desktop_app.store.project import Project


def gold_step(index: int, item: WorkItem) -> GoldStep:
    """The step's annotated (gold) action as Dual-Stream scoring compares it."""
    gold = next((a for a in item.actions if a.label == "gold"), None)
    if gold is None:
        return GoldStep(index, "none", width=item.width, height=item.height)
    meta = gold.meta
    return GoldStep(index, gold.action_type, gold.box, bool(meta.get("point")), gold.type_text,
                    meta.get("direction", ""), meta.get("app_name", ""), item.width, item.height)


def _action(data: dict | None) -> ParsedAction | None:
    """A stream's stored parse (Prediction.parsed["first"] / ["second"]), back as a ParsedAction."""
    return parsed_action(data.get("raw", ""), data) if data else None


def episode_metrics(project: Project, run: m.Run, options: StepOptions = StepOptions()) -> dict:
    """Finished episodes only (an episode with a missing or failed step is not scored, and counted)."""
    selection = RunSelection.from_json(run.selection)
    units, _ = episode_units(load_items(project, selection.episodes), selection.include_unlabelled)
    with project.reading() as s:
        predictions = {p.step_id: p for p in s.execute(
            select(m.Prediction).where(m.Prediction.run_id == run.id)).scalars()}
        episodes = {e.id: e for e in s.execute(
            select(m.Episode).where(m.Episode.id.in_([u.key for u in units]))).scalars()}
    scores, per_episode, unfinished = [], [], 0
    for unit in units:
        rows = [predictions.get(i.step_id) for i in unit.items]
        if any(r is None or r.verdict == "error" for r in rows):
            unfinished += 1
            continue
        first = [_action(r.parsed.get("first")) or ParsedAction(raw="", wrong_format=True) for r in rows]
        second = {t: _action(r.parsed.get("second")) for t, r in enumerate(rows) if r.parsed.get("second")}
        episode = episodes[unit.key]
        navi = navi_of(episode)
        ask_steps = navi.ask_steps if navi else []
        questions = {p.ask_step: p.question for p in navi.qa_pairs} if navi else {}
        golds = [gold_step(t, item) for t, item in enumerate(unit.items)]
        score = score_episode(golds, first, second, ask_steps, questions, options)
        scores.append(score)
        per_episode.append({"episode": episode.key, "goal": episode.goal, "steps": score.steps,
                            "correct": score.correct, "ssr": score.ssr, "success": score.success,
                            "ask_steps": ask_steps, "events": score.events, "question_f1": score.question_f1,
                            "questions": score.question_pairs})
    allow_ask = bool((run.options or {}).get("allow_ask", True))
    return {"allow_ask": allow_ask, "unfinished_episodes": unfinished, **summarize(scores),
            "content": content_scores([pair for s in scores for pair in s.question_pairs]),
            "per_episode": per_episode}
