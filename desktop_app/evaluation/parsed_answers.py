"""Answers parsed once (ADR 0052): what the envdistraction rules read of a raw answer, worked out when a run
writes it and kept in typed columns of the prediction, so that `screenlab eval` scores a million answers from
columns with numpy instead of reading every raw text again.

    answer_x, answer_y  CogAgent's and SeeClick's point as rules/envdistraction.py reads it from the raw answer
                        (cogagent_point, seeclick_point), in the screen's pixels
    answer_tokens       a json-text answer: the tokens of their answer extraction and normalisation
                        (envdistraction_text.extract_answer, normalize_tokens), joined by single spaces
    answer_flags        PARSE_VERSION << 8, the extraction family the target chose (bits 4-5), and the bits
                        FALLBACK (their fallback point: a wrong format), ROW (the rules must read this answer
                        themselves: a SeeClick coordinate that is not a number, a point no float holds exactly)
                        and PATTERN_FAILED (their answer pattern did not match)

What is stored is exactly what the rules compute from the raw answer, so scoring from it cannot differ; what
it depends on besides the answer is checked where it could change: the family (an episode's scenario can be
edited after the run) is compared with the current target's at scoring time, and a row whose flags are not
this version's is read from its raw answer. A run's convention and a screen's size never change.

Writers (runs/context.py, runs/protocols/live_store.py, runs/imported_verdicts.py) call parse_rows for the rows
they wrote; rows written before (old runs, a benchmark's generated project) are parsed by the first evaluation
that may write them (parse_pending), once.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import bindparam, or_, select, update
from sqlalchemy.exc import DBAPIError

from desktop_app.evaluation.columns import SOURCE_TARGET
from desktop_app.evaluation.rules import envdistraction_text as txt
from desktop_app.evaluation.rules.envdistraction import TARGET_FOR_SCENARIO, cogagent_point, seeclick_point
from desktop_app.gc_pause import gc_paused
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.store.server_roles import STAFF

PARSE_VERSION = 1  # bump when what is stored changes: rows of another version are parsed again
VERSION_SHIFT = 8
FALLBACK, ROW, PATTERN_FAILED = 1, 2, 4
FAMILY_SHIFT = 4
FAMILIES = {"": 0, "element": 1, "action": 2}
CURRENT = PARSE_VERSION << VERSION_SHIFT
BATCH = 5_000


def family_code(target: str) -> int:
    return FAMILIES[txt.regex_family(target)]


def is_current(flags: int | None) -> bool:
    return flags is not None and flags >> VERSION_SHIFT == PARSE_VERSION


def _exact(value) -> float | None:
    """The value as a float when the float is the same number (comparisons then agree with Python's)."""
    try:
        as_float = float(value)
    except (OverflowError, TypeError, ValueError):
        return None
    return as_float if as_float == value or as_float != as_float else None


def parse_answer(raw: str, convention: str, target: str, width: int | None,
                 height: int | None) -> tuple[float | None, float | None, str | None, int]:
    """(answer_x, answer_y, answer_tokens, answer_flags) of one answer (not a failed request)."""
    flags = CURRENT
    if convention == "json-text":
        answer = txt.extract_answer(raw, target)
        flags |= family_code(target) << FAMILY_SHIFT | (PATTERN_FAILED if answer.pattern_failed else 0)
        return None, None, " ".join(txt.normalize_tokens(answer.cleaned)), flags
    if convention not in ("cogagent", "seeclick"):
        return None, None, None, flags  # ScreenLab's parse, already in x and y
    if width is None or height is None:  # a step with no screen: never scored from columns
        return None, None, None, flags | ROW
    point = (cogagent_point if convention == "cogagent" else seeclick_point)(raw, width, height)
    x = _exact(point.x) if point.x is not None else None
    y = _exact(point.y) if point.y is not None else None
    if x is None or y is None:
        return None, None, None, flags | ROW
    return x, y, None, flags | (FALLBACK if point.fallback else 0)


_READ = (m.Prediction.id, m.Prediction.raw_text, m.Prediction.verdict, m.Run.convention, m.Episode.scenario,
         SOURCE_TARGET, m.Screen.width, m.Screen.height)
_WRITE = (update(m.Prediction.__table__).where(m.Prediction.__table__.c.id == bindparam("pid"))
          .values(answer_x=bindparam("ax"), answer_y=bindparam("ay"), answer_tokens=bindparam("at"),
                  answer_flags=bindparam("af")))


def _select(ids: Sequence[int] | None):
    stmt = (select(*_READ).join(m.Run, m.Run.id == m.Prediction.run_id)
            .join(m.Step, m.Step.id == m.Prediction.step_id).join(m.Episode, m.Episode.id == m.Step.episode_id)
            .join(m.Screen, m.Screen.id == m.Step.screen_id, isouter=True))
    return stmt.where(m.Prediction.id.in_(list(ids)) if ids is not None else _unparsed())


def _unparsed():
    return or_(m.Prediction.answer_flags.is_(None), m.Prediction.answer_flags < CURRENT,
               m.Prediction.answer_flags >= CURRENT + (1 << VERSION_SHIFT))


def _values(row) -> dict:
    pid, raw, verdict, convention, scenario, source, width, height = row
    if verdict == "error":
        return {"pid": pid, "ax": None, "ay": None, "at": None, "af": CURRENT}
    target = source or TARGET_FOR_SCENARIO.get(scenario, scenario)  # rules/envdistraction.target_of
    ax, ay, tokens, flags = parse_answer(raw or "", convention or "", target or "", width, height)
    return {"pid": pid, "ax": ax, "ay": ay, "at": tokens, "af": flags}


def answer_columns(session, run_id: int, step_id: int, raw_text: str, verdict: str) -> dict:
    """The four columns of one answer about to be written (what parse_rows would write after it), for a writer
    that sets them on the row itself: one small read instead of a read and an UPDATE per answer."""
    found = session.execute(
        select(m.Run.convention, m.Episode.scenario, SOURCE_TARGET, m.Screen.width, m.Screen.height)
        .select_from(m.Step).join(m.Episode, m.Episode.id == m.Step.episode_id)
        .join(m.Screen, m.Screen.id == m.Step.screen_id, isouter=True).join(m.Run, m.Run.id == run_id)
        .where(m.Step.id == step_id)).one()
    values = _values((None, raw_text, verdict, *found))
    return {"answer_x": values["ax"], "answer_y": values["ay"], "answer_tokens": values["at"],
            "answer_flags": values["af"]}


def parse_rows(session, ids: Sequence[int]) -> int:
    """Parse these predictions (again), within the caller's transaction: what a writer calls for the rows it
    wrote. Returns how many."""
    done = 0
    for start in range(0, len(ids), BATCH):
        rows = session.execute(_select(ids[start:start + BATCH])).all()
        if rows:
            session.execute(_WRITE, [_values(r) for r in rows])
        done += len(rows)
    return done


def parse_unparsed(session) -> int:
    """Parse every prediction not parsed by this version (old runs), BATCH at a time, in the caller's
    transaction. Returns how many."""
    done = 0
    while True:
        with gc_paused():
            rows = session.execute(_select(None).order_by(m.Prediction.id).limit(BATCH)).all()
            if not rows:
                return done
            session.execute(_WRITE, [_values(r) for r in rows])
        done += len(rows)


def may_write_parses(project: Project) -> bool:
    """An annotator on a server may not write predictions: their evaluation reads unparsed rows' raw answers."""
    return not project.on_server or project.identity.role in STAFF


def parse_pending(project: Project) -> int:
    """The first evaluation after an upgrade (or of rows written without their parse) parses them, once."""
    if not may_write_parses(project):
        return 0
    with project.reading() as s:
        if s.execute(select(m.Prediction.id).where(_unparsed()).limit(1)).first() is None:
            return 0
    try:
        with project.transaction() as s:
            return parse_unparsed(s)
    except DBAPIError:
        # the database would not take the write (locked, read-only, no grant): scoring reads the raw answers of
        # the rows left unparsed, which gives the same results, only slower
        return 0
