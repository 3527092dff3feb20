"""The envdistraction rules' point answers counted by SQLite itself (issue 36: `screenlab eval` of a million in
seconds): which label's box holds each point and which labels each screen has, worked out in one grouped query
per part of a run, so that only the counts come back to Python, not a row per prediction and per action.

It is their location rule as rules/envdistraction_batch.py applies it to the stored points (answer_x/answer_y
parsed once for CogAgent and SeeClick, ScreenLab's x/y for the other conventions): gold if a gold box holds the
point (bounds inclusive), else distracted if a distracted box does, else other if any box does; a screen
without a gold or without a distracted label is excluded; a failed request is an error. Reading the actions
into arrays was most of the cost (a Python tuple per action: three per prediction); the index on (step_id,
label) answers "which labels" without reading the table, and the box test reads each action once, in C.

Only where the two readings cannot differ:
- SQLite only. SQLite cannot store NaN (it keeps NULL, and NULL is in no box, as NaN is in numpy); PostgreSQL
  stores NaN and orders it above every number, so there a NaN point could fall "inside" a box. Servers keep
  the array path.
- The "auto" text metric only (the others send every answer through the rules one by one).
- CogAgent's and SeeClick's rows parsed by this parse version and not marked ROW; `left_over` is the rest,
  which the array path scores from the raw answers as before.
SQLite compares a REAL with a REAL as doubles, as numpy does; the columns are FLOAT (REAL affinity), so
integers are stored as reals. tests/test_point_counts.py checks the counts against the array path.
"""

from __future__ import annotations

from collections import Counter

from sqlalchemy import and_, case, exists, func, or_, select

from desktop_app.evaluation.parsed_answers import FALLBACK, PARSE_VERSION, ROW, VERSION_SHIFT
from desktop_app.evaluation.rules.envdistraction import EnvDistractionRules, excluded_reason
from desktop_app.store import models as m
from desktop_app.store.project import Project

P, A = m.Prediction, m.ActionBox
PARSED_POINTS = ("cogagent", "seeclick")  # their point is in answer_x/answer_y; other point conventions' in x/y
_VERDICTS = ("gold", "distracted", "other", "invalid")


def counts_points(project: Project, rule_set) -> bool:
    """Whether this evaluation's point answers can be counted by the database (see the module's doc)."""
    return not project.on_server and isinstance(rule_set, EnvDistractionRules) and rule_set.metric == "auto"


def by_database(convention: str) -> bool:
    """Whether a run of this output convention is counted here (text answers are not: token F1)."""
    return convention != "json-text"


def _usable():
    flags = P.answer_flags
    return and_(flags.op(">>")(VERSION_SHIFT) == PARSE_VERSION, flags.op("&")(ROW) == 0)


def left_over(convention: str):
    """The rows of a run of this convention that point_counts leaves to the array path, as a WHERE clause, or
    None when there are none."""
    if convention not in PARSED_POINTS:
        return None
    flags = P.answer_flags
    return or_(flags.is_(None), flags.op(">>")(VERSION_SHIFT) != PARSE_VERSION, flags.op("&")(ROW) != 0)


def point_counts(session, run_id: int, convention: str, first: int | None = None, end: int | None = None) -> Counter:
    """The counted rows (evaluation/rows._count_parts' keys: run, scenario, verdict, excluded reason, gold,
    distracted, available, wrong format) of a run's predictions whose step id is >= first and < end (None: no
    bound), but for left_over(convention)'s."""
    if convention in PARSED_POINTS:
        px, py, wrong = P.answer_x, P.answer_y, P.answer_flags.op("&")(FALLBACK) != 0
    else:
        px, py, wrong = P.x, P.y, or_(P.x.is_(None), P.y.is_(None))
    label_code = case((A.label == "gold", 0), (A.label == "distracted", 1), else_=2)
    code = (select(func.min(label_code)).where(A.step_id == P.step_id, px.between(A.x1, A.x2),
                                               py.between(A.y1, A.y2)).scalar_subquery())
    has = {label: exists().where(A.step_id == P.step_id, A.label == label) for label in ("gold", "distracted")}
    # every column a small integer (or NULL): the group key; Python makes the flags of each group below
    inner = (select(P.run_id, m.Episode.scenario, case((P.verdict == "error", 1), else_=0).label("error"),
                    case((has["gold"], 1), else_=0).label("has_gold"),
                    case((has["distracted"], 1), else_=0).label("has_distracted"),
                    case((wrong, 1), else_=0).label("wrong"), code.label("code"))
             .join(m.Step, m.Step.id == P.step_id).join(m.Episode, m.Episode.id == m.Step.episode_id)
             .where(P.run_id == run_id, m.Step.screen_id.is_not(None)))
    if convention in PARSED_POINTS:
        inner = inner.where(_usable())
    if first is not None:
        inner = inner.where(P.step_id >= first)
    if end is not None:
        inner = inner.where(P.step_id < end)
    inner = inner.subquery()
    keys = [inner.c[k] for k in ("run_id", "scenario", "error", "has_gold", "has_distracted", "wrong", "code")]
    out: Counter = Counter()
    for run, scenario, error, has_gold, has_distracted, wrong_format, found, n in session.connection().execute(
            select(*keys, func.count()).group_by(*keys)):
        out[_key(run, scenario, error, has_gold, has_distracted, wrong_format, found)] += n
    return out


def _key(run: int, scenario: str, error: int, has_gold: int, has_distracted: int, wrong_format: int,
         found: int | None) -> tuple:
    """What score_chunk's flags give such a prediction, as _count_parts counts them."""
    if error:
        return run, scenario, "error", "", False, False, False, False
    if not (has_gold and has_distracted):  # their run skips such screens: neither scored nor a wrong format
        reason = excluded_reason({"gold"} if has_gold else {"distracted"} if has_distracted else set())
        return run, scenario, "invalid", reason, False, False, False, False
    code = 3 if found is None else found  # no box holds the point (or there is none)
    return run, scenario, _VERDICTS[code], "", code == 0, code == 1, code < 3, bool(wrong_format)
