"""The predictions of one step, for the canvas overlay and the prediction panel.

report.prediction_rows() loads whole runs; the GUI asks for one step at a time (on every step
change and while answers stream in), so this is one indexed query that also brings the matched
box's rectangle for text predictions. Row keys match prediction_rows(), plus a few more.
"""

from __future__ import annotations

from sqlalchemy import select

from desktop_app.store import models as m
from desktop_app.store.project import Project

COLUMNS = (m.Prediction.run_id, m.Prediction.step_id, m.Prediction.parsed, m.Prediction.x, m.Prediction.y,
           m.Prediction.element_text, m.Prediction.verdict, m.Prediction.wrong_format, m.Prediction.matched_box_id,
           m.Prediction.latency_ms, m.Prediction.prompt_tokens, m.Prediction.completion_tokens, m.Prediction.error,
           m.Prediction.raw_text, m.Run.name, m.Run.agent, m.Run.pattern, m.Run.convention, m.Run.model,
           m.Run.protocol, m.ActionBox.x1, m.ActionBox.y1, m.ActionBox.x2,
           m.ActionBox.y2, m.ActionBox.label)


def step_prediction_rows(project: Project, step_id: int, run_ids: list[int]) -> list[dict]:
    """One dict per run that has a prediction for this step, in run order. Plain columns, not ORM
    objects: this runs on the UI thread while answers stream in, so it is kept lean."""
    if not run_ids:
        return []
    # the rescoring rules only once a run is shown: the window shows no runs at first and imports this at start
    from desktop_app.evaluation.rescore import catch_up

    catch_up(project)  # (a lead's or reviewer's view: the steps annotators changed are judged first)
    with project.reading() as s:
        result = s.execute(
            select(*COLUMNS)
            .join(m.Run, m.Run.id == m.Prediction.run_id)
            .outerjoin(m.ActionBox, m.ActionBox.id == m.Prediction.matched_box_id)
            .where(m.Prediction.step_id == step_id, m.Prediction.run_id.in_(run_ids))
            .order_by(m.Prediction.run_id)).all()
    out = []
    for (run_id, step, parsed, x, y, element, verdict, wrong_format, box_id, latency, p_tokens, c_tokens, error,
         raw, run_name, agent, pattern, convention, model, protocol, x1, y1, x2, y2, box_label) in result:
        parsed = parsed or {}
        out.append({
            "run": run_id, "run_name": run_name, "agent": agent, "pattern": pattern, "protocol": protocol,
            "convention": convention, "model": model, "step_id": step,
            "action_type": parsed.get("action_type"), "point": [x, y] if x is not None else None,
            "element": element or None, "text": parsed.get("text"), "verdict": verdict,
            "wrong_format": bool(wrong_format), "matched_box": box_id,
            "matched_box_rect": [x1, y1, x2, y2] if x1 is not None else None, "matched_box_label": box_label,
            "how": parsed.get("how"), "latency_ms": latency, "prompt_tokens": p_tokens,
            "completion_tokens": c_tokens, "error": error or None, "raw": raw,
            # episode protocol: the agent asked first, and the simulated user's answer
            "asked": (parsed.get("first") or {}).get("text") if parsed.get("asked") else None,
            "user_answer": parsed.get("answer"),
        })
    return out
