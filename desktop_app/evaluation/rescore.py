"""Judge stored predictions again under ScreenLab's rules after a label fix, so every view agrees with the
current labels. Registered with the store (store/box_listeners.py, ADR 0024): every committed change of
boxes re-scores the answers on its steps, whether the window, the CLI, the API or a script made it."""

from __future__ import annotations

from sqlalchemy import select

from desktop_app.evaluation.rows import parsed_action
from desktop_app.evaluation.rules.base import target_of
from desktop_app.evaluation.rules.screenlab import ScoringOptions, judge
from desktop_app.store import box_listeners
from desktop_app.store import models as m
from desktop_app.store.project import Project


def rescore(project: Project, step_ids: list[int] | None = None, run_ids: list[int] | None = None,
            scoring: ScoringOptions = ScoringOptions()) -> int:
    """Single-screen predictions judged again against the current boxes. Returns how many changed."""
    changed = 0
    with project.transaction() as s:
        stmt = (select(m.Prediction, m.Episode.scenario).join(m.Step, m.Step.id == m.Prediction.step_id)
                .join(m.Episode, m.Episode.id == m.Step.episode_id).join(m.Run, m.Run.id == m.Prediction.run_id)
                .where(m.Prediction.verdict != "error", m.Run.protocol == "screen"))
        if step_ids is not None:
            stmt = stmt.where(m.Prediction.step_id.in_(step_ids))
        if run_ids is not None:
            stmt = stmt.where(m.Prediction.run_id.in_(run_ids))
        rows = s.execute(stmt).all()
        steps = {p.step_id for p, _ in rows}
        boxes: dict[int, list] = {sid: [] for sid in steps}
        for box in s.execute(select(m.ActionBox).where(m.ActionBox.step_id.in_(steps))
                             .order_by(m.ActionBox.id)).scalars():  # annotation order: overlap="first"
            boxes[box.step_id].append(box)
        for prediction, scenario in rows:
            v = judge(parsed_action(prediction.raw_text, prediction.parsed), [target_of(b) for b in boxes[prediction.step_id]],
                      scenario, scoring)
            if (v.verdict, v.target_id) != (prediction.verdict, prediction.matched_box_id):
                prediction.verdict, prediction.matched_box_id = v.verdict, v.target_id
                prediction.parsed = {**prediction.parsed, "how": v.how, "score": v.score}
                s.add(prediction)
                changed += 1
    return changed


STEPS_PER_QUERY = 500  # an edit of many steps (adjudication) stays under SQLite's limit of bound values


@box_listeners.after_boxes_changed
def rescore_after_edit(project: Project, step_ids: list[int]) -> int:
    """The store calls this after boxes of these steps changed; returns how many verdicts changed."""
    return sum(rescore(project, step_ids=step_ids[i:i + STEPS_PER_QUERY])
               for i in range(0, len(step_ids), STEPS_PER_QUERY))
