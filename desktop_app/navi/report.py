"""Metrics of a run on multi-step episodes, recomputed from the stored predictions."""

from __future__ import annotations

from sqlalchemy import select

from desktop_app.agents.actions import ParsedAction
from desktop_app.agents.runner import plan, run_filter, run_profile
from desktop_app.navi.model import navi_of
from desktop_app.navi.runner import _episodes
from desktop_app.navi.scoring import StepOptions, score_episode, summarize
from desktop_app.store import models as m
from desktop_app.store.project import Project


def _action(data: dict | None) -> ParsedAction | None:
    if not data:
        return None
    return ParsedAction(raw=data.get("raw", ""), action_type=data.get("action_type"),
                        point=tuple(data["point"]) if data.get("point") else None,
                        box=tuple(data["box"]) if data.get("box") else None, element=data.get("element"),
                        text=data.get("text"), wrong_format=bool(data.get("wrong_format")),
                        extra=data.get("extra") or {})


def navi_metrics(project: Project, run_id: int, options: StepOptions = StepOptions()) -> dict:
    run, _ = run_profile(project, run_id)
    items = plan(project, run_filter(run))
    with project.reading() as s:
        predictions = {p.step_id: p for p in s.execute(select(m.Prediction).where(m.Prediction.run_id == run_id))
                       .scalars()}
    scores, episodes = [], []
    for episode, steps, golds in _episodes(project, items):
        rows = [predictions.get(i.step_id) for i in steps]
        if any(r is None or r.verdict == "error" for r in rows):
            continue  # unfinished episodes are not scored
        first = [_action(r.parsed.get("first")) or ParsedAction(raw="", wrong_format=True) for r in rows]
        second = {t: _action(r.parsed.get("second")) for t, r in enumerate(rows) if r.parsed.get("second")}
        navi = navi_of(episode)
        ask_steps = navi.ask_steps if navi else []
        questions = {p.ask_step: p.question for p in navi.qa_pairs} if navi else {}
        score = score_episode(golds, first, second, ask_steps, questions, options)
        scores.append(score)
        episodes.append({"episode": episode.key, "goal": episode.goal, "steps": score.steps,
                         "correct": score.correct, "ssr": score.ssr, "success": score.success,
                         "ask_steps": ask_steps, "events": score.events,
                         "question_f1": score.question_f1})
    return {"run": run_id, "mode": "navi", "allow_ask": run.meta.get("allow_ask"), **summarize(scores),
            "per_episode": episodes}
