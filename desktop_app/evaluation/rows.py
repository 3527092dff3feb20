"""Per-prediction rows of runs, under a rule set: what tables, `screenlab eval` and the dashboard count.

    verdict_rows(project, run_ids)                 ScreenLab's stored verdicts: light and fast (SQL only)
    rule_rows(project, run_ids, "envdistraction")  every answer scored again from its raw text and the
                                                   step's current boxes, with independent flags
    prediction_rows(project, run_ids, rules)       the full per-sample record (`eval --per-sample`)

Row keys: run, agent, pattern, scenario, verdict, wrong_format, episode_id, step_id, rules, and for
rule sets with independent flags gold, distracted, available, excluded (metrics.row_flags).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from sqlalchemy import select

from desktop_app.agents.actions import ParsedAction
from desktop_app.evaluation.rules import RULES, get_rules
from desktop_app.evaluation.rules.base import ScoringInput, Target, target_of
from desktop_app.evaluation.rules.screenlab import flags_of
from desktop_app.store import models as m
from desktop_app.store.project import Project

CHUNK = 5000
DEFAULT_RULES = "screenlab"


def parsed_action(raw: str, parsed: dict | None) -> ParsedAction:
    """The stored parse of an answer (Prediction.parsed), back as a ParsedAction."""
    p = parsed or {}
    return ParsedAction(raw=raw, action_type=p.get("action_type"),
                        point=tuple(p["point"]) if p.get("point") else None,
                        box=tuple(p["box"]) if p.get("box") else None, element=p.get("element"),
                        text=p.get("text"), wrong_format=bool(p.get("wrong_format")), extra=p.get("extra") or {})


def _runs(session, run_ids: list[int]) -> dict[int, m.Run]:
    return {r.id: r for r in session.execute(select(m.Run).where(m.Run.id.in_(run_ids))).scalars()}


def verdict_rows(project: Project, run_ids: list[int]) -> list[dict]:
    """ScreenLab's verdicts as stored (kept current by rescore after a label fix); no raw answers."""
    with project.reading() as s:
        runs = _runs(s, run_ids)
        result = s.execute(
            select(m.Prediction.run_id, m.Prediction.verdict, m.Prediction.wrong_format, m.Episode.id,
                   m.Episode.scenario, m.Prediction.step_id)
            .join(m.Step, m.Step.id == m.Prediction.step_id)
            .join(m.Episode, m.Episode.id == m.Step.episode_id)
            .where(m.Prediction.run_id.in_(run_ids)).order_by(m.Prediction.run_id, m.Episode.id, m.Step.index))
        out = []
        for run_id, verdict, wrong_format, episode_id, scenario, step_id in result:
            run = runs[run_id]
            out.append({"run": run_id, "agent": run.agent, "pattern": run.pattern, "scenario": scenario,
                        "verdict": verdict, "wrong_format": bool(wrong_format), "episode_id": episode_id,
                        "step_id": step_id, "rules": DEFAULT_RULES})
    return out


def scoring_inputs(project: Project, run_ids: list[int]) -> Iterator[tuple[dict, ScoringInput | None]]:
    """(row keys, what a rule set needs) per prediction; None for requests that failed."""
    target_path = m.Episode.meta["envdistraction"]["target"].as_string()
    with project.reading() as s:
        runs = _runs(s, run_ids)
        rows = s.execute(
            select(m.Prediction.run_id, m.Prediction.step_id, m.Prediction.raw_text, m.Prediction.parsed,
                   m.Prediction.verdict, m.Prediction.wrong_format, m.Episode.id, m.Episode.scenario, target_path,
                   m.Screen.width, m.Screen.height)
            .join(m.Step, m.Step.id == m.Prediction.step_id)
            .join(m.Episode, m.Episode.id == m.Step.episode_id)
            .join(m.Screen, m.Screen.id == m.Step.screen_id)
            .where(m.Prediction.run_id.in_(run_ids)).order_by(m.Prediction.run_id, m.Episode.id, m.Step.index)).all()
        for start in range(0, len(rows), CHUNK):
            chunk = rows[start:start + CHUNK]
            boxes: dict[int, list[Target]] = {}
            step_ids = sorted({r[1] for r in chunk})
            for part in range(0, len(step_ids), 500):
                for b in s.execute(select(m.ActionBox).where(m.ActionBox.step_id.in_(step_ids[part:part + 500]))
                                   .order_by(m.ActionBox.id)).scalars():
                    boxes.setdefault(b.step_id, []).append(target_of(b))
            for (run_id, step_id, raw, parsed, verdict, wrong_format, episode_id, scenario, source, width,
                 height) in chunk:
                run = runs[run_id]
                keys = {"run": run_id, "agent": run.agent, "pattern": run.pattern, "scenario": scenario,
                        "episode_id": episode_id, "step_id": step_id, "stored_verdict": verdict,
                        "stored_wrong_format": bool(wrong_format)}
                if verdict == "error":
                    yield keys, None
                    continue
                yield keys, ScoringInput(raw or "", parsed_action(raw or "", parsed), tuple(boxes.get(step_id, ())),
                                         scenario, source or "", run.convention, width, height)


def rule_rows(project: Project, run_ids: list[int], rules: str = DEFAULT_RULES, details: bool = False) -> list[dict]:
    """Rows under a rule set. ScreenLab's come from the stored verdicts; others score every answer."""
    if rules == DEFAULT_RULES and not details:
        return verdict_rows(project, run_ids)
    rule_set = get_rules(rules)
    out = []
    for keys, item in scoring_inputs(project, run_ids):
        keys.pop("stored_wrong_format")
        stored = keys.pop("stored_verdict")
        if item is None:
            out.append({**keys, "verdict": "error", "wrong_format": False, "rules": rules})
            continue
        f = rule_set.score(item)
        if rules == DEFAULT_RULES:  # the stored verdict is what every other view shows (rescore keeps it current)
            f = replace(flags_of(stored, f.wrong_format), target_id=f.target_id, how=f.how, score=f.score)
        row = {**keys, "verdict": f.verdict, "wrong_format": f.wrong_format, "gold": f.gold,
               "distracted": f.distracted, "available": f.available, "excluded": f.excluded, "rules": rules}
        if details:
            row.update(matched_box=f.target_id, how=f.how, score=round(f.score, 6), note=f.note)
        out.append(row)
    return out


def prediction_rows(project: Project, run_ids: list[int], rules: tuple[str, ...] = (DEFAULT_RULES,)) -> list[dict]:
    """One dict per prediction with the answer, the parse and each rule set's flags (`eval --per-sample`).
    Never an API key: rows hold what the model said, not what was sent."""
    with project.reading() as s:
        runs = _runs(s, run_ids)
        result = s.execute(
            select(m.Prediction, m.Episode.key, m.Episode.goal, m.Episode.scenario, m.Step.index)
            .join(m.Step, m.Step.id == m.Prediction.step_id)
            .join(m.Episode, m.Episode.id == m.Step.episode_id)
            .where(m.Prediction.run_id.in_(run_ids)).order_by(m.Prediction.run_id, m.Episode.id, m.Step.index)).all()
    scored = {name: {(r["run"], r["step_id"]): r for r in rule_rows(project, run_ids, name, details=True)}
              for name in rules}
    out = []
    for p, key, goal, scenario, index in result:
        run = runs[p.run_id]
        row = {"run": p.run_id, "protocol": run.protocol, "agent": run.agent, "pattern": run.pattern,
               "convention": run.convention, "episode": key, "step": index, "goal": goal, "scenario": scenario,
               "action_type": (p.parsed or {}).get("action_type"),
               "point": [p.x, p.y] if p.x is not None else None, "element": p.element_text or None,
               "verdict": p.verdict, "wrong_format": p.wrong_format, "matched_box": p.matched_box_id,
               "latency_ms": p.latency_ms, "error": p.error or None, "raw": p.raw_text}
        for name in rules:
            r = scored[name].get((p.run_id, p.step_id), {})
            row[name] = {k: r.get(k) for k in ("verdict", "gold", "distracted", "available", "excluded",
                                                "matched_box", "how", "score", "note")}
        out.append(row)
    return out


__all__ = ["DEFAULT_RULES", "RULES", "parsed_action", "prediction_rows", "rule_rows", "scoring_inputs", "verdict_rows"]
