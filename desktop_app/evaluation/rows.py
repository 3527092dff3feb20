"""Per-prediction rows of runs, under a rule set: what tables, `screenlab eval` and the dashboard count.

    verdict_rows(project, run_ids)                 ScreenLab's stored verdicts: light and fast (SQL only)
    rule_rows(project, run_ids, "envdistraction")  every answer scored again from its raw text and the
                                                   step's current boxes, with independent flags
    iter_prediction_rows(project, run_ids, rules)  the full per-sample record (`eval --per-sample`), streamed
    prediction_rows(project, run_ids, rules)       the same, as a list
    counted_rows(project, run_ids, rules)          (row, how many) pairs: what metrics count, for a million
                                                   predictions in seconds (evaluation/report.py)

Every list is in run, episode and step order. Predictions are read as columns a chunk at a time
(evaluation/columns.py), never as an ORM object each.

Row keys: run, agent, pattern, scenario, verdict, wrong_format, episode_id, step_id, rules, and for
rule sets with independent flags gold, distracted, available, excluded (metrics.row_flags).

text_metric (auto, f1, result-id): how the envdistraction rules score text answers (rules.get_rules).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from sqlalchemy import and_, func, select

from desktop_app.agents.actions import stored_action as parsed_action  # noqa: F401  (its name here before)
from desktop_app.evaluation import flag_cache
from desktop_app.evaluation.columns import (
    SOURCE_TARGET,
    STEPS_PER_QUERY,
    prediction_chunks,
    scoring_columns,
    step_actions,
)
from desktop_app.evaluation.parsed_answers import parse_pending
from desktop_app.evaluation.point_counts import by_database, counts_points, left_over, point_counts
from desktop_app.evaluation.rescore import catch_up
from desktop_app.evaluation.rules import RULES, check_text_metric, get_rules
from desktop_app.evaluation.rules.base import ScoringInput
from desktop_app.evaluation.rules.envdistraction import EnvDistractionRules
from desktop_app.evaluation.rules.envdistraction_batch import reads, score_chunk
from desktop_app.evaluation.rules.screenlab import flags_of
from desktop_app.evaluation.work_split import (
    PIECES_PER_PROCESS,
    Part,
    at_worker_exit,
    on_every_core,
    prediction_total,
    share_count,
    split_runs,
    start_method,
)
from desktop_app.gc_pause import gc_paused
from desktop_app.store import models as m
from desktop_app.store.project import Project

DEFAULT_RULES = "screenlab"
DETAILS = ("verdict", "gold", "distracted", "available", "excluded", "matched_box", "how", "score", "note")


def _runs(session, run_ids: list[int]) -> dict[int, m.Run]:
    return {r.id: r for r in session.execute(select(m.Run).where(m.Run.id.in_(run_ids))).scalars()}


def verdict_rows(project: Project, run_ids: list[int]) -> list[dict]:
    """ScreenLab's verdicts as stored (kept current by rescore after a label fix); no raw answers."""
    catch_up(project)
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


_INPUT_COLUMNS = (m.Prediction.run_id, m.Prediction.step_id, m.Prediction.raw_text, m.Prediction.parsed,
                  m.Prediction.verdict, m.Prediction.wrong_format, m.Episode.id, m.Episode.scenario, SOURCE_TARGET,
                  m.Screen.width, m.Screen.height)


def scoring_inputs(project: Project, run_ids: list[int]) -> Iterator[tuple[dict, ScoringInput | None]]:
    """(row keys, what a rule set needs) per prediction, streamed; None for requests that failed."""
    catch_up(project)
    with project.reading() as s:
        runs = _runs(s, run_ids)
        for chunk in prediction_chunks(s, run_ids, _INPUT_COLUMNS):
            actions = step_actions(s, [r[1] for r in chunk])
            for (run_id, step_id, raw, parsed, verdict, wrong_format, episode_id, scenario, source, width,
                 height) in chunk:
                run = runs[run_id]
                keys = {"run": run_id, "agent": run.agent, "pattern": run.pattern, "scenario": scenario,
                        "episode_id": episode_id, "step_id": step_id, "stored_verdict": verdict,
                        "stored_wrong_format": bool(wrong_format)}
                if verdict == "error":
                    yield keys, None
                    continue
                yield keys, ScoringInput(raw or "", parsed_action(raw or "", parsed), actions.targets(step_id),
                                         scenario, source or "", run.convention, width, height)


def _batched(rule_set) -> bool:
    """Rule sets scored a chunk at a time (envdistraction_batch); the others one answer at a time."""
    return isinstance(rule_set, EnvDistractionRules)


def _chunk_rows(project: Project, run_ids: list[int], rule_set, ordered: bool) -> Iterator[tuple[list, dict, object]]:
    with project.reading() as s:
        yield from _chunk_rows_in(s, run_ids, rule_set, ordered)


SKIP, MERGE = "skip", "merge"  # _chunk_rows_in's ways with stored flags (evaluation/flag_cache.py)


def _chunk_rows_in(s, run_ids: list[int], rule_set, ordered: bool, parts: list[Part] | None = None,
                   points_counted: bool = False, flags_stored: str = "",
                   to_store: flag_cache.Scored | None = None) -> Iterator[tuple[list, dict, object]]:
    """(rows of columns.scoring_columns(), runs, their ChunkFlags) per chunk, for a batched rule set; a run at
    a time (in id order), reading only what its agent's output convention needs. parts: only these parts of
    the runs (work_split.split_runs), in their order. points_counted: the database counted the point runs'
    predictions (point_counts): only those it left over are read. flags_stored SKIP: the rows whose flags are
    stored (flag_cache.stored_counts counts them) are not read; MERGE: every row is read, and the rows with
    stored flags are given them instead of being scored. Either way the rows read end with their stored flags'
    column as read, and to_store gathers the rows scored here that flag_cache keeps. _chunk_rows: every row
    scored, in a session of its own."""
    runs = _runs(s, run_ids)
    conventions = {run_id: run.convention for run_id, run in runs.items()}
    for run_id, first, end in parts if parts is not None else [(r, None, None) for r in sorted(set(run_ids))]:
        convention = conventions.get(run_id, "")
        only = None
        if points_counted and by_database(convention):
            only = left_over(convention)
            if only is None:
                continue
        if flags_stored == SKIP:
            only = flag_cache.not_stored() if only is None else and_(only, flag_cache.not_stored())
        # what flag_cache keeps: every row read when skipping (exactly those stored_counts counts); when merging,
        # a text run's (the point runs' other rows are counted by the database: storing them would be wasted)
        keep = to_store is not None and (flags_stored == SKIP or flags_stored == MERGE and convention == "json-text")
        raw, source, texts, sizes = reads(convention, rule_set, parsed=True)
        columns = scoring_columns(raw, source, sizes, parsed=True, cached=bool(flags_stored))
        for chunk in prediction_chunks(s, [run_id], columns,
                                       ordered=ordered, typed=False, steps=(first, end), where=only):
            stored = [flag_cache.is_stored(r[-1]) for r in chunk] if flags_stored == MERGE else None
            todo = chunk if stored is None else [r for r, found in zip(chunk, stored, strict=True) if not found]
            actions = step_actions(s, [r[1] for r in todo], texts)
            with gc_paused():
                flags = score_chunk(todo, actions, conventions, rule_set, lambda ids: _raw_answers(s, ids))
                if keep:
                    to_store.add(todo, flags)
                if stored is not None:
                    flags = flag_cache.merged([r[-1] for r in chunk], stored, flags)
            yield chunk, runs, flags


def _raw_answers(session, ids: list[int]) -> dict[int, tuple[str, int | None, int | None]]:
    """Prediction id -> (raw answer, screen width, height), for the rows whose parse scoring cannot use."""
    out = {}
    for start in range(0, len(ids), STEPS_PER_QUERY):
        out.update((pid, (raw, width, height)) for pid, raw, width, height in session.execute(
            select(m.Prediction.id, m.Prediction.raw_text, m.Screen.width, m.Screen.height)
            .join(m.Step, m.Step.id == m.Prediction.step_id).join(m.Screen, m.Screen.id == m.Step.screen_id)
            .where(m.Prediction.id.in_(ids[start:start + STEPS_PER_QUERY]))))
    return out


def rule_rows(project: Project, run_ids: list[int], rules: str = DEFAULT_RULES, details: bool = False,
              text_metric: str = "auto") -> list[dict]:
    """Rows under a rule set. ScreenLab's come from the stored verdicts; the envdistraction rules' from the
    flags stored where they are (evaluation/flag_cache.py); others score every answer."""
    rule_set = get_rules(rules, text_metric)
    if rules == DEFAULT_RULES and not details:
        return verdict_rows(project, run_ids)
    if _batched(rule_set) and not details:
        parse_pending(project)
        if flag_cache.usable(project, rule_set):
            return _stored_or_scored_rows(project, run_ids, rule_set, rules)
        return [row for chunk, runs, flags in _chunk_rows(project, run_ids, rule_set, ordered=True)
                for row in _flag_rows(chunk, runs, flags, rules)]
    return [_scored_row(keys, item, rule_set, rules, details) for keys, item in scoring_inputs(project, run_ids)]


def _stored_or_scored_rows(project: Project, run_ids: list[int], rule_set, rules: str) -> list[dict]:
    """rule_rows' rows where flag_cache is usable, in run, episode and step order: each answer's stored flags
    where it has them, else scored here; the text answers scored here are stored for next time."""
    to_store = flag_cache.Scored()
    with project.reading() as s:
        out = [row for chunk, runs, flags in _chunk_rows_in(s, run_ids, rule_set, ordered=True, flags_stored=MERGE,
                                                            to_store=to_store)
               for row in _flag_rows(chunk, runs, flags, rules)]
    to_store.store(project)
    return out


def _flag_rows(chunk: list, runs: dict, flags, rules: str) -> Iterator[dict]:
    for (run_id, step_id, episode_id, scenario, *_), verdict, error, excluded, gold, distracted, available, \
            wrong_format in zip(chunk, flags.verdicts(), flags.error.tolist(), flags.excluded, flags.gold.tolist(),
                                flags.distracted.tolist(), flags.available.tolist(), flags.wrong_format.tolist(),
                                strict=True):
        run = runs[run_id]
        keys = {"run": run_id, "agent": run.agent, "pattern": run.pattern, "scenario": scenario,
                "episode_id": episode_id, "step_id": step_id}
        if error:
            yield {**keys, "verdict": "error", "wrong_format": False, "rules": rules}
        else:
            yield {**keys, "verdict": verdict, "wrong_format": wrong_format, "gold": gold, "distracted": distracted,
                   "available": available, "excluded": excluded, "rules": rules}


def _scored_row(keys: dict, item: ScoringInput | None, rule_set, rules: str, details: bool) -> dict:
    keys.pop("stored_wrong_format")
    stored = keys.pop("stored_verdict")
    if item is None:
        return {**keys, "verdict": "error", "wrong_format": False, "rules": rules}
    f = rule_set.score(item)
    if rules == DEFAULT_RULES:  # the stored verdict is what every other view shows (rescore keeps it current)
        f = replace(flags_of(stored, f.wrong_format), target_id=f.target_id, how=f.how, score=f.score)
    row = {**keys, "verdict": f.verdict, "wrong_format": f.wrong_format, "gold": f.gold,
           "distracted": f.distracted, "available": f.available, "excluded": f.excluded, "rules": rules}
    if details:
        row.update(matched_box=f.target_id, how=f.how, score=round(f.score, 6), note=f.note)
    return row


def counted_rows(project: Project, run_ids: list[int], rules: str = DEFAULT_RULES,
                 parallel_min: int | None = None, processes: int | None = None,
                 text_metric: str = "auto") -> Iterator[tuple[dict, int]]:
    """What metrics.summarize_counted counts: (row, how many predictions have it), rows with keys run,
    scenario, verdict, wrong_format (and the flags of rule sets that have them). In no particular order.
    A rule set that scores the answers again does it on every core from `parallel_min` predictions
    (default: evaluation/work_split.parallel_minimum()), or in `processes` processes then when given."""
    catch_up(project)
    if rules == DEFAULT_RULES:  # stored verdicts: the database counts them
        with project.reading() as s:
            result = s.execute(
                select(m.Prediction.run_id, m.Episode.scenario, m.Prediction.verdict, m.Prediction.wrong_format,
                       func.count())
                .join(m.Step, m.Step.id == m.Prediction.step_id).join(m.Episode, m.Episode.id == m.Step.episode_id)
                .where(m.Prediction.run_id.in_(run_ids))
                .group_by(m.Prediction.run_id, m.Episode.scenario, m.Prediction.verdict, m.Prediction.wrong_format)
            ).all()
        for run_id, scenario, verdict, wrong_format, n in result:
            yield {"run": run_id, "scenario": scenario, "verdict": verdict, "wrong_format": bool(wrong_format)}, n
        return
    rule_set = get_rules(rules, text_metric)
    counts: Counter = Counter()
    if _batched(rule_set):
        parse_pending(project)  # old runs' answers, once (ADR 0052)
        with project.reading() as s:
            workers = share_count(prediction_total(s, run_ids), minimum=parallel_min)
            workers = processes if processes and workers > 1 else workers
            split = (split_runs(s, run_ids, workers * PIECES_PER_PROCESS) if workers > 1
                     else [[(r, None, None) for r in sorted(set(run_ids))]])
        if workers > 1 and start_method() == "fork":
            project.release_connections()
        for share in on_every_core(lambda parts: _count_parts(project, run_ids, rule_set, parts), _count_elsewhere,
                                   split, project.url, str(project.folder or ""), run_ids, rules, text_metric,
                                   workers=workers - 1):
            counts.update(share)
    else:
        for keys, item in scoring_inputs(project, run_ids):
            row = _scored_row(keys, item, rule_set, rules, False)
            counts[(row["run"], row["scenario"], row["verdict"], row.get("excluded"), row.get("gold"),
                    row.get("distracted"), row.get("available"), row["wrong_format"])] += 1
    for (run_id, scenario, verdict, excluded, gold, distracted, available, wrong_format), n in counts.items():
        if verdict == "error":
            yield {"run": run_id, "scenario": scenario, "verdict": "error", "wrong_format": False}, n
        else:
            yield {"run": run_id, "scenario": scenario, "verdict": verdict, "wrong_format": wrong_format,
                   "gold": gold, "distracted": distracted, "available": available, "excluded": excluded}, n


def store_flags(project: Project, run_ids: list[int]) -> None:
    """Scores and stores the envdistraction flags of these runs' answers that are scored in Python and have none
    stored (evaluation/flag_cache.py), so that the next evaluation counts them with the database: what a run
    does when it finishes (runs/engine.py). Nothing where the flags are not stored (a server)."""
    if flag_cache.usable(project, get_rules("envdistraction")):
        for _ in counted_rows(project, run_ids, "envdistraction"):
            pass


def _count_parts(project: Project, run_ids: list[int], rule_set, parts: list[Part]) -> Counter:
    """The counted rows of some parts of the runs under a batched rule set: what counted_rows adds up. Where
    flag_cache is usable, answers whose flags are stored are counted by the database, and the flags of those
    scored here are stored at the end (by each process for its shares: one writes while the other scores).
    The cycle collector stays off throughout (a worker process has no caller to pause it: desktop_app/gc_pause.py)."""
    counts: Counter = Counter()
    in_database = counts_points(project, rule_set)
    cached = flag_cache.usable(project, rule_set)
    to_store = flag_cache.Scored()
    with gc_paused(), project.reading() as s:
        if cached:  # one snapshot: an answer stored or marked meanwhile is counted once, stored or scored here
            flag_cache.one_snapshot(s)
        if in_database:  # the point runs' answers, counted by SQLite (evaluation/point_counts.py)
            conventions = {run_id: run.convention for run_id, run in _runs(s, run_ids).items()}
            for run_id, first, end in parts:
                convention = conventions.get(run_id, "")
                if by_database(convention):
                    counts.update(point_counts(s, run_id, convention, first, end))
                if cached:  # answers scored by an evaluation before, their flags stored
                    counts.update(flag_cache.stored_counts(s, run_id, convention, first, end))
        for chunk, _, flags in _chunk_rows_in(s, run_ids, rule_set, ordered=False, parts=parts,
                                              points_counted=in_database, flags_stored=SKIP if cached else "",
                                              to_store=to_store if cached else None):
            counts.update(zip((r[0] for r in chunk), (r[3] for r in chunk), flags.verdicts(), flags.excluded,
                              flags.gold.tolist(), flags.distracted.tolist(), flags.available.tolist(),
                              flags.wrong_format.tolist(), strict=True))
    to_store.store(project)
    return counts


def _count_elsewhere(parts: list[Part], url: str, folder: str, run_ids: list[int], rules: str,
                     text_metric: str = "auto") -> Counter:
    """_count_parts in a worker process (work_split.on_every_core), which opens the project again by its
    address (a server's password comes from the environment or the keyring, as in the parent)."""
    project = _OPENED.get((url, folder))
    if project is None:  # once per worker: it counts several shares (work_split.on_every_core)
        project = _OPENED[url, folder] = Project(url, None, Path(folder) if folder else None)
        at_worker_exit(project.close)
    return _count_parts(project, run_ids, get_rules(rules, text_metric), parts)


_OPENED: dict[tuple[str, str], Project] = {}  # a worker process's project, by its address


_SAMPLE_COLUMNS = (m.Prediction.run_id, m.Prediction.step_id, m.Prediction.raw_text, m.Prediction.parsed,
                   m.Prediction.verdict, m.Prediction.wrong_format, m.Episode.scenario, SOURCE_TARGET,
                   m.Screen.width, m.Screen.height, m.Screen.id, m.Episode.key, m.Episode.goal, m.Step.index,
                   m.Prediction.x, m.Prediction.y, m.Prediction.element_text, m.Prediction.matched_box_id,
                   m.Prediction.latency_ms, m.Prediction.error)


def iter_prediction_rows(project: Project, run_ids: list[int], rules: tuple[str, ...] = (DEFAULT_RULES,),
                         text_metric: str = "auto") -> Iterator[dict]:
    """One dict per prediction with the answer, the parse and each rule set's flags (`eval --per-sample`),
    streamed a chunk at a time. Never an API key: rows hold what the model said, not what was sent."""
    check_text_metric(rules, text_metric)  # before the first row: a generator says nothing until asked
    return _iter_prediction_rows(project, run_ids, {name: get_rules(name, text_metric) for name in rules})


def _iter_prediction_rows(project: Project, run_ids: list[int], rule_sets: dict) -> Iterator[dict]:
    catch_up(project)
    with project.reading() as s:
        runs = _runs(s, run_ids)
        for chunk in prediction_chunks(s, run_ids, _SAMPLE_COLUMNS, all_steps=True):
            actions = step_actions(s, [r[1] for r in chunk])
            with gc_paused():
                rows = [_sample_row(r, runs[r[0]], actions, rule_sets) for r in chunk]
            yield from rows


def _sample_row(columns, run: m.Run, actions, rule_sets: dict) -> dict:
    (run_id, step_id, raw, parsed, verdict, wrong_format, scenario, source, width, height, screen_id, key, goal,
     index, x, y, element, matched_box, latency, error) = columns
    row = {"run": run_id, "protocol": run.protocol, "agent": run.agent, "pattern": run.pattern,
           "convention": run.convention, "episode": key, "step": index, "goal": goal, "scenario": scenario,
           "action_type": (parsed or {}).get("action_type"), "point": [x, y] if x is not None else None,
           "element": element or None, "verdict": verdict, "wrong_format": wrong_format, "matched_box": matched_box,
           "latency_ms": latency, "error": error or None, "raw": raw}
    item = None
    if screen_id is not None and verdict != "error":
        item = ScoringInput(raw or "", parsed_action(raw or "", parsed), actions.targets(step_id), scenario,
                            source or "", run.convention, width, height)
    for name, rule_set in rule_sets.items():
        if screen_id is None:  # scoring needs the screen: such a prediction is not scored
            scored = {}
        else:
            scored = _scored_row({"stored_verdict": verdict, "stored_wrong_format": wrong_format}, item, rule_set,
                                 name, True)
        row[name] = {k: scored.get(k) for k in DETAILS}
    return row


def prediction_rows(project: Project, run_ids: list[int], rules: tuple[str, ...] = (DEFAULT_RULES,),
                    text_metric: str = "auto") -> list[dict]:
    """iter_prediction_rows as a list."""
    return list(iter_prediction_rows(project, run_ids, rules, text_metric))


__all__ = ["DEFAULT_RULES", "RULES", "counted_rows", "iter_prediction_rows", "parsed_action", "prediction_rows",
           "rule_rows", "scoring_inputs", "store_flags", "verdict_rows"]
