"""The envdistraction rules' flags of answers scored in Python, stored in `prediction.cached_flags` when a run
ends (rows.store_flags) or an evaluation has scored them, so that the next evaluation counts them with the
database (issue 36, ADR 0066).

Text answers (json-text: token F1 against each action's text) and the points the rules read from a raw answer
cannot be counted by SQLite (evaluation/point_counts.py counts the rest). Scoring 100,000 of them again at each
`screenlab eval` read 300,000 actions and their texts into Python. Stored, they are counted like the screenlab
rules' verdicts: one grouped query.

A stored value is right only while what the rules read of that answer is unchanged. Migration 0016's triggers
mark an answer when any of it changes (the step's actions, the episode's scenario and EnvDistraction target, the
screen's size, the run's output convention, the answer and its parse): a stored value becomes -1, and a mark goes
one lower at each change (NULL: never stored, nor changed since). They are in the database, so an edit from the
window, the API, another process or a plain sqlite3 shell marks it alike.

An evaluation reads each answer's value in the same row as the answer, before the step's actions, and stores
the flags it scored only where the value is still the one it read (store). An edit made after the read changed
the value, so flags scored from what was there before an edit are never stored. Two evaluations at once store
the same flags, each from a state no edit followed.

Only where the counts cannot differ from scoring each answer (what point_counts.counts_points allows): SQLite
projects and the "auto" text metric. Servers score every answer at each evaluation (no triggers there: an
annotator's edit would have to clear rows they may not write). A database that will not take the writes
(read-only, locked by another writer beyond a short wait) is evaluated as before, storing what it could.

Value: VERSION << VERSION_SHIFT | the flags' bits | the exclusion's reason << REASON_SHIFT. Bump VERSION when what
the rules give an answer changes: stored values of another version are ignored, and replaced at the next
evaluation.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence

import numpy as np
from sqlalchemy import func, or_, select, true
from sqlalchemy.exc import DBAPIError

from desktop_app.evaluation.point_counts import PARSED_POINTS, counts_points, left_over
from desktop_app.evaluation.rules.envdistraction import excluded_reason
from desktop_app.evaluation.rules.envdistraction_batch import ChunkFlags
from desktop_app.store import models as m
from desktop_app.store.project import Project

log = logging.getLogger(__name__)

P = m.Prediction
VERSION = 1
VERSION_SHIFT = 8
ERROR, GOLD, DISTRACTED, AVAILABLE, WRONG_FORMAT = 1, 2, 4, 8, 16
REASON_SHIFT = 5
REASONS = ("", excluded_reason({"gold"}), excluded_reason({"distracted"}), excluded_reason(set()))
WAIT_S = 2.0  # for another writer's lock; then the evaluation stops storing this time
# answers stored per transaction: the write lock is held some 40 ms at a time, so an edit in the window never waits
# long behind an evaluation or a run storing flags (one transaction for 100,000 was no faster: 0.79 against 0.74 s)
WRITES_PER_TRANSACTION = 5_000


def usable(project: Project, rule_set) -> bool:
    """Whether this evaluation reads and stores flags here (see the module's doc): where point_counts counts the
    points, and text answers are scored with the "auto" text metric, the one the flags are stored under."""
    return counts_points(project, rule_set) and rule_set.text_metric == "auto"


def stored():
    """Rows whose flags are stored, of this version."""
    return P.cached_flags.op(">>")(VERSION_SHIFT) == VERSION


def not_stored():
    return or_(P.cached_flags.is_(None), P.cached_flags.op(">>")(VERSION_SHIFT) != VERSION)


def scored_in_python(convention: str):
    """The rows of a run of this convention that rows._count_parts scores in Python when point_counts counts the
    rest, as a WHERE clause, or None when there are none."""
    if convention == "json-text":
        return true()
    return left_over(convention) if convention in PARSED_POINTS else None


def encode(flags) -> np.ndarray:
    """Each answer's stored value from rules/envdistraction_batch.ChunkFlags; -1 where it cannot be stored."""
    value = (VERSION << VERSION_SHIFT) + flags.error * ERROR + flags.gold * GOLD + flags.distracted * DISTRACTED \
        + flags.available * AVAILABLE + flags.wrong_format * WRONG_FORMAT
    reasons = np.array([REASONS.index(r) if r in REASONS else -1 for r in flags.excluded], dtype=np.int64)
    return np.where(reasons >= 0, value.astype(np.int64) + (reasons << REASON_SHIFT), -1)


def decode(value: int) -> tuple[str, str, bool, bool, bool, bool]:
    """(verdict, exclusion's reason, gold, distracted, available, wrong format), as rows._count_parts keys them."""
    if value & ERROR:
        return "error", "", False, False, False, False
    gold, distracted, available = bool(value & GOLD), bool(value & DISTRACTED), bool(value & AVAILABLE)
    verdict = "gold" if gold else "distracted" if distracted else "other" if available else "invalid"
    return (verdict, REASONS[(value >> REASON_SHIFT) & 3], gold, distracted, available, bool(value & WRONG_FORMAT))


def is_stored(value: int | None) -> bool:
    """Whether a cached_flags value as read holds flags of this version."""
    return value is not None and value >> VERSION_SHIFT == VERSION


def merged(values: Sequence[int | None], stored: Sequence[bool], scored: ChunkFlags) -> ChunkFlags:
    """A chunk's flags in its order: the stored values where `stored`, the flags scored for the other rows (in
    their order) elsewhere."""
    at = np.flatnonzero(~np.asarray(stored, dtype=bool))
    v = np.array([x if s else 0 for x, s in zip(values, stored, strict=True)], dtype=np.int64)
    out = ChunkFlags((v & ERROR) != 0, [REASONS[(x >> REASON_SHIFT) & 3] for x in v.tolist()], (v & GOLD) != 0,
                     (v & DISTRACTED) != 0, (v & AVAILABLE) != 0, (v & WRONG_FORMAT) != 0)
    for name in ("error", "gold", "distracted", "available", "wrong_format"):
        getattr(out, name)[at] = getattr(scored, name)
    for i, reason in zip(at.tolist(), scored.excluded, strict=True):
        out.excluded[i] = reason
    return out


def one_snapshot(session) -> None:
    """The session's reads from here to its end see one state of the file (SQLite reads each statement in its own
    snapshot unless a transaction is open): what stored_counts counts and what is read to be scored then part
    exactly, whatever another process stores or edits meanwhile. The store comes after the session ends."""
    session.connection().exec_driver_sql("BEGIN")


def stored_counts(session, run_id: int, convention: str, first: int | None = None, end: int | None = None) -> Counter:
    """The counted rows (rows._count_parts' keys) of a run's stored flags, for step ids >= first and < end."""
    wanted = scored_in_python(convention)
    out: Counter = Counter()
    if wanted is None:
        return out
    stmt = (select(P.run_id, m.Episode.scenario, P.cached_flags, func.count())
            .join(m.Step, m.Step.id == P.step_id).join(m.Episode, m.Episode.id == m.Step.episode_id)
            .where(P.run_id == run_id, wanted, stored(), m.Step.screen_id.is_not(None)))
    if first is not None:
        stmt = stmt.where(P.step_id >= first)
    if end is not None:
        stmt = stmt.where(P.step_id < end)
    for run, scenario, value, n in session.connection().execute(
            stmt.group_by(P.run_id, m.Episode.scenario, P.cached_flags)):
        out[(run, scenario, *decode(value))] += n
    return out


class Scored:
    """The answers an evaluation scored, gathered chunk by chunk, to store once its reads are done."""

    def __init__(self) -> None:
        self.ids: list[int] = []
        self.seen: list[int | None] = []
        self.values: list[int] = []

    def add(self, rows: list, flags: ChunkFlags) -> None:
        """rows: columns.scoring_columns(parsed=True, cached=True) rows; flags: theirs, in their order."""
        self.ids += [r[12] for r in rows]
        self.seen += [r[-1] for r in rows]
        self.values += encode(flags).tolist()

    def store(self, project: Project) -> int:
        return store(project, self.ids, self.seen, self.values) if self.ids else 0


def store(project: Project, ids: Sequence[int], seen: Sequence[int | None], values: Sequence[int]) -> int:
    """Stores each answer's value (-1: none) where its cached_flags is still what the evaluation read (`seen`), a
    few thousand per transaction. Returns how many were stored; it stops when the database will not take the write
    (read-only, locked beyond a short wait)."""
    rows = [(v, i, s) for i, s, v in zip(ids, seen, values, strict=True) if v >= 0]
    done = 0
    try:
        for start in range(0, len(rows), WRITES_PER_TRANSACTION):
            with project.transaction(wait_s=WAIT_S) as session:
                done += session.connection().exec_driver_sql(  # SQLite only (usable): IS matches a NULL read as NULL
                    "UPDATE prediction SET cached_flags = ? WHERE id = ? AND cached_flags IS ?",
                    rows[start:start + WRITES_PER_TRANSACTION]).rowcount
    except DBAPIError as exc:
        log.info("evaluation: flags not all stored this time (%s)", str(exc).splitlines()[0])
    return done
