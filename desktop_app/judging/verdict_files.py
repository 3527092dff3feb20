"""Judge verdicts made elsewhere, read from a file, so they can be measured beside ours.

Two layouts:
    rm_results.json   the authors' evaluator output (Agent-Eval-Refine's run_eval_*.py):
                      {trajectory uid: {"gt": bool, "rm": bool}}; rm is the judge's verdict
                      (true = success). Their scorer counts any answer other than "success" as a
                      failure, so a false rm may also be an answer that could not be read.
    <name>.jsonl      evals lines ({task_uid, user_uid, annotation, comment}), the layout their
                      annotation app writes and `screenlab judge export --evals --run` writes for a
                      judge: annotation is the verdict, comment its reasoning. One user_uid is the
                      judge; a file holding several needs `user` to say which.
Unsure and Emulator Error lines are no verdict: they are left out and counted. A line that cannot
be read refuses the whole file, naming the line and field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from desktop_app.formats.records import FormatError, Where, optional, read_json, require
from desktop_app.formats.unified_trajectory import ANNOTATIONS, evals_rows

VERDICT_OUTCOMES = ("success", "failure", "impossible")


@dataclass(frozen=True)
class ReadVerdict:
    uid: str  # the trajectory's uid (its key in the project)
    status: str  # success | failure | impossible
    thoughts: str  # the reasoning, when the file has one
    raw: str  # the entry as written (kept as the prediction's raw answer)
    where: Where
    field: str


@dataclass(frozen=True)
class VerdictFile:
    verdicts: tuple[ReadVerdict, ...]
    judge: str  # the name the file suggests: the evals user_uid, else the file's folder or stem
    left_out: int  # lines that are no verdict (unsure, emulator error)
    layout: str  # rm_results | evals


def read_verdict_file(path: Path, user: str = "") -> VerdictFile:
    path = Path(path)
    if path.suffix == ".jsonl":
        return _evals(path, user.strip())
    if path.suffix == ".json":
        if user.strip():
            raise FormatError("--user picks a judge among evals lines; an rm_results.json holds one judge", path)
        return _rm_results(path)
    raise FormatError("expected the authors' rm_results.json or an evals .jsonl file of a judge's verdicts", path)


def judges_in(path: Path) -> list[str]:
    """The judges a verdict file holds: the user_uids of evals lines ([] for an rm_results.json, which holds
    one, unnamed). For a front end to ask which one before importing."""
    path = Path(path)
    return sorted({who for *_, who in evals_rows(path)}) if path.suffix == ".jsonl" else []


def _rm_results(path: Path) -> VerdictFile:
    data = read_json(path)
    if not isinstance(data, dict) or not data:
        raise FormatError('expected an object {trajectory uid: {"gt": true/false, "rm": true/false}} '
                          "(the authors' rm_results.json)", path)
    where = Where(path)
    out = []
    for uid, entry in data.items():
        rm = require(entry, "rm", bool, where, f"{uid}.")
        out.append(ReadVerdict(str(uid), "success" if rm else "failure", "", json.dumps(entry), where, f"{uid}.rm"))
    # their outputs/<run name>/rm_results.json: the folder names the judge run
    judge = path.parent.name if path.stem == "rm_results" and path.parent.name else path.stem
    return VerdictFile(tuple(out), judge, 0, "rm_results")


def _evals(path: Path, user: str) -> VerdictFile:
    rows = evals_rows(path)
    users = {who for *_, who in rows}
    if not rows:
        raise FormatError("no verdict lines (task_uid, user_uid, annotation, comment)", path)
    if user and user not in users:
        raise FormatError(f"no lines by {user!r}; the file has: {', '.join(sorted(users))}", path)
    if not user:
        if len(users) > 1:
            raise FormatError(f"lines by {len(users)} annotators ({', '.join(sorted(users))}): say which one is the "
                              f"judge (--user NAME)", path)
        user = next(iter(users))
    latest: dict[str, ReadVerdict | None] = {}
    for where, obj, uid, who in rows:
        if who != user:
            continue
        raw = require(obj, "annotation", str, where)
        outcome = ANNOTATIONS.get(raw.strip().lower())
        if outcome is None:
            raise where.error(f"unknown annotation {raw!r} (Success, Failure, Impossible, Unsure, Emulator Error)",
                              "annotation")
        comment = optional(obj, "comment", str, where, "")
        # later lines replace earlier ones (the log is append-only); an unsure line withdraws a verdict
        latest[uid] = (ReadVerdict(uid, outcome, comment, json.dumps(obj, ensure_ascii=False), where, "task_uid")
                       if outcome in VERDICT_OUTCOMES else None)
    verdicts = tuple(v for v in latest.values() if v is not None)
    return VerdictFile(verdicts, user, sum(1 for v in latest.values() if v is None), "evals")
