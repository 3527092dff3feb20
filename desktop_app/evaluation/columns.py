"""The predictions of runs as columns, a chunk at a time: what `screenlab eval` reads (issue 19).

A million predictions must be scored in seconds and a few hundred MB, so nothing here makes an ORM
object per prediction: one SELECT of the columns the rules need (Core rows on the session's connection,
streamed with yield_per: a server-side cursor on PostgreSQL), and for each chunk the annotated actions
of its steps (one query per range or per 500 steps), as arrays (StepActions), with Targets made only
for the steps a rule reads texts on. JSON is decoded only where it is read: an action's meta when it is
not "{}", a prediction's parse only on the per-sample path.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

import numpy as np
from sqlalchemy import String, cast, literal, null, select, type_coerce
from sqlalchemy.types import NullType

from desktop_app.evaluation.rules.base import Target
from desktop_app.gc_pause import gc_paused
from desktop_app.store import models as m

CHUNK = 10_000
STEPS_PER_QUERY = 500  # under SQLite's limit of bound values
SCORING_CODES = {"gold": 0, "distracted": 1, "other": 2}
SOURCE_TARGET = m.Episode.meta["envdistraction"]["target"].as_string()  # the EnvDistraction target imported


def scoring_columns(raw: bool = True, source: bool = True, sizes: bool = True, parsed: bool = False,
                    cached: bool = False) -> tuple:
    """What scoring reads of a prediction, in this order: run, step, episode, scenario, verdict,
    wrong_format, x, y, raw answer, source target, screen width, height, and with parsed the answer parsed
    once (evaluation/parsed_answers.py): prediction id, answer_x, answer_y, answer_tokens, answer_flags; then
    with cached (and parsed) its stored flags' column as read (evaluation/flag_cache.py).
    raw / source / sizes False: "", None and None in their place (reading every answer's text, parsing every
    episode's meta for its target or looking up every screen is most of the cost when a rule does not read
    them)."""
    columns = (m.Prediction.run_id, m.Prediction.step_id, m.Episode.id, m.Episode.scenario, m.Prediction.verdict,
               m.Prediction.wrong_format, m.Prediction.x, m.Prediction.y,
               m.Prediction.raw_text if raw else literal(""), SOURCE_TARGET if source else null(),
               m.Screen.width if sizes else null(), m.Screen.height if sizes else null())
    if parsed:
        columns += (m.Prediction.id, m.Prediction.answer_x, m.Prediction.answer_y, m.Prediction.answer_tokens,
                    m.Prediction.answer_flags)
        if cached:
            columns += (m.Prediction.cached_flags,)
    return columns


def prediction_chunks(session, run_ids: Sequence[int], columns, ordered: bool = True, all_steps: bool = False,
                      typed: bool = True, steps: tuple[int | None, int | None] = (None, None),
                      where=None) -> Iterator[list]:
    """Rows of `columns` for the predictions of these runs, CHUNK at a time. ordered: by run, episode and
    step index (what every list shows); otherwise as stored (metrics count, in any order). all_steps: keep
    predictions of steps with no screen (their screen columns are None); otherwise they are left out, as
    scoring needs the screen's size. typed False: values as the database driver gives them (a boolean may
    be 0 or 1, JSON is text), which halves the cost of reading a million rows. steps: only predictions whose
    step id is >= the first and < the second (None: no bound), a part of a run (evaluation/work_split.py).
    where: only the predictions this clause holds for."""
    stmt = (select(*columns).join(m.Step, m.Step.id == m.Prediction.step_id)
            .join(m.Episode, m.Episode.id == m.Step.episode_id)
            .where(m.Prediction.run_id.in_(list(run_ids))))
    if steps[0] is not None:
        stmt = stmt.where(m.Prediction.step_id >= steps[0])
    if steps[1] is not None:
        stmt = stmt.where(m.Prediction.step_id < steps[1])
    if where is not None:
        stmt = stmt.where(where)
    if any(getattr(c, "table", None) is m.Screen.__table__ for c in stmt.selected_columns):
        stmt = stmt.join(m.Screen, m.Screen.id == m.Step.screen_id, isouter=all_steps)
    elif not all_steps:  # what the join would leave out
        stmt = stmt.where(m.Step.screen_id.is_not(None))
    if ordered:
        stmt = stmt.order_by(m.Prediction.run_id, m.Episode.id, m.Step.index)
    yield from _rows(session, stmt, CHUNK, typed)


def _rows(session, stmt, chunk: int, typed: bool = False) -> Iterator[list]:
    """The statement's rows, `chunk` at a time (a server-side cursor on PostgreSQL). typed False: no
    value converted back (the columns are read as NullType), which halves the cost of a million rows."""
    if not typed:
        stmt = stmt.with_only_columns(*(type_coerce(c, NullType()) for c in stmt.selected_columns),
                                      maintain_column_froms=True)
    connection = session.connection()
    if not typed and connection.dialect.name == "sqlite":
        # the driver's own tuples: a SQLAlchemy Row costs about 1.5 us more to unpack, a third of reading
        # 300,000 actions. SQLite has no server-side cursor, so nothing is buffered that this would skip.
        result = connection.execute(stmt)
        cursor = result.cursor
        try:
            while True:
                with gc_paused():
                    rows = cursor.fetchmany(chunk)
                if not rows:
                    return
                yield rows
        finally:
            result.close()
    result = connection.execute(stmt.execution_options(yield_per=chunk))
    try:
        while True:
            with gc_paused():
                rows = result.fetchmany(chunk)
            if not rows:
                return
            yield rows
    finally:
        result.close()


_BOX_COLUMNS = (m.ActionBox.step_id, m.ActionBox.label, m.ActionBox.x1, m.ActionBox.y1, m.ActionBox.x2,
                m.ActionBox.y2)
_TARGET_COLUMNS = (m.ActionBox.id, m.ActionBox.element_text, cast(m.ActionBox.meta, String))


class StepActions:
    """The annotated actions of some steps, grouped by step in annotation order (box id), as scoring
    sees them: arrays over all of them, `code` (0 gold, 1 distracted, 2 other: a project's own labels
    count as other) and `boxes` (K, 4) with NaN where an action has no box; per step (`step_ids`,
    ascending) where its actions start and end and which labels it has. `targets(step)` makes a step's
    Targets once, for the rules that read texts (loaded without them, the step's actions are read
    again then)."""

    def __init__(self, rows: list, session=None):
        width = len(rows[0]) if rows else len(_BOX_COLUMNS)
        columns = list(zip(*rows, strict=True)) if rows else [()] * width
        self.labels = [_SCORING_LABELS.get(label, label) for label in columns[1]]
        self.code = np.array([SCORING_CODES[label] for label in self.labels], dtype=np.int8)
        self.boxes = np.array(columns[2:6], dtype=np.float64).T.reshape(len(rows), 4)  # None -> NaN
        steps = np.array(columns[0], dtype=np.int64)
        self.step_ids, self.starts = np.unique(steps, return_index=True)  # rows come grouped by step
        self.ends = np.r_[self.starts[1:], len(rows)].astype(np.int64)[:len(self.starts)]
        present = np.zeros((len(self.step_ids), 3), dtype=bool)
        present[np.searchsorted(self.step_ids, steps), self.code] = True
        self.has_gold, self.has_distracted = present[:, 0], present[:, 1]
        self._rows = rows if width > len(_BOX_COLUMNS) else None
        self._session = session
        self._targets: dict[int, tuple[Target, ...]] = {}
        self._spans: dict[int, tuple[int, int]] | None = None

    def positions(self, step_ids: np.ndarray) -> np.ndarray:
        """Each step's index in step_ids, or -1 for a step with no action."""
        at = np.searchsorted(self.step_ids, step_ids)
        inside = at < len(self.step_ids)
        found = np.zeros(len(step_ids), dtype=bool)
        found[inside] = self.step_ids[at[inside]] == step_ids[inside]
        return np.where(found, at, -1)

    def span(self, step_id: int) -> tuple[int, int]:
        if self._spans is None:
            self._spans = dict(zip(self.step_ids.tolist(), zip(self.starts.tolist(), self.ends.tolist(), strict=True),
                                   strict=True))
        return self._spans.get(step_id, (0, 0))

    def all_rows(self) -> list:
        """Every action row, as loaded (with texts when loaded with texts=True), grouped by step."""
        return self._rows

    def targets(self, step_id: int) -> tuple[Target, ...]:
        """The step's actions as Targets (what rules.base.target_of makes of an ActionBox)."""
        found = self._targets.get(step_id)
        if found is None:
            start, end = self.span(step_id)
            rows = self._rows[start:end] if self._rows is not None else _action_rows(self._session, [step_id], True)
            found = self._targets[step_id] = tuple(_target(r) for r in rows)
        return found


_SCORING_LABELS = {label: label for label in SCORING_CODES}


def _target(row) -> Target:
    _, label, x1, y1, x2, y2, box_id, text, meta = row
    if isinstance(meta, str):  # read as text: most actions have none, and "{}" needs no parser
        meta = {} if meta == "{}" else json.loads(meta)
    meta = meta or {}
    return Target.quick(box_id, _SCORING_LABELS.get(label, label), text, (x1, y1, x2, y2) if x1 is not None else None,
                        meta.get("role", ""), bool(meta.get("out_of_screen")))


def _action_rows(session, step_ids: Sequence[int], texts: bool) -> list:
    """Rows of _BOX_COLUMNS (+ _TARGET_COLUMNS) of these steps' actions, by step and box id, as the
    driver gives them."""
    columns = _BOX_COLUMNS + (_TARGET_COLUMNS if texts else ())
    wanted = sorted(set(step_ids))
    if not wanted:
        return []
    # annotation order within a step matters to the text rules; the point rules only need steps grouped, as
    # the index on (step_id, label) gives them without sorting
    order = (m.ActionBox.step_id, m.ActionBox.id) if texts else (m.ActionBox.step_id,)
    if wanted[-1] - wanted[0] < 2 * len(wanted):  # a chunk's steps are mostly a range: one query, a few extra
        stmt = select(*columns).where(m.ActionBox.step_id.between(wanted[0], wanted[-1])).order_by(*order)
        return [row for rows in _rows(session, stmt, 50_000) for row in rows]
    rows = []
    for start in range(0, len(wanted), STEPS_PER_QUERY):
        stmt = select(*columns).where(m.ActionBox.step_id.in_(wanted[start:start + STEPS_PER_QUERY])).order_by(*order)
        rows += [row for part in _rows(session, stmt, 50_000) for row in part]
    return rows


def step_actions(session, step_ids: Sequence[int], texts: bool = True) -> StepActions:
    """The actions of these steps (any order, repeats allowed). texts False: boxes and labels only, what
    the point rules read; targets() then reads a step's texts when asked."""
    rows = _action_rows(session, step_ids, texts)
    with gc_paused():
        return StepActions(rows, session)
