"""A big evaluation counted on every core: the predictions split into shares, each counted by its own
process, the counts added up (issue 19: `screenlab eval` on a million predictions in seconds).

Scoring text answers is Python code a prediction at a time, so one process uses one core whatever the
machine has. Counting is a sum, so shares can be counted apart and added: a share is a list of parts,
each part a run's predictions whose step ids lie in a range (the unique index on (run, step) finds the
bounds and reads each part without sorting). Every run is cut into as many parts as there are shares,
so each share gets a slice of every run: text runs cost several times what point runs do, and the
shares stay even whatever mix of runs is asked for.

This process counts the first share while the others run in processes started fresh ("spawn": safe
beside the window's threads, and the same on every OS; the installer's entry point calls
multiprocessing.freeze_support for it). A worker opens the project again from its address: a folder's
database, or a server whose password comes from the environment or the keyring as here (store/db.py).
Small evaluations stay in this process: starting a worker costs about half a second of imports.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from sqlalchemy import func, select

from desktop_app.store import models as m

Part = tuple[int, int | None, int | None]  # (run id, first step id, step id where the next part starts)
PARALLEL_MIN = 200_000  # predictions; below this a worker's start-up costs more than it saves
MAX_SHARES = 4  # more processes add memory and start-up, and a laptop has other work to do
PIECES_PER_PROCESS = 4  # shares per process, so the processes' ends meet evenly (on_every_core)


def share_count(predictions: int, cores: int | None = None, minimum: int = PARALLEL_MIN) -> int:
    """How many processes count `predictions`: one when they are few or the machine has one core."""
    cores = cores if cores is not None else (os.cpu_count() or 1)
    if predictions < minimum or cores < 2:
        return 1
    return min(cores, MAX_SHARES)


def prediction_total(session, run_ids: Sequence[int]) -> int:
    return session.execute(select(func.count()).select_from(m.Prediction)
                           .where(m.Prediction.run_id.in_(list(run_ids)))).scalar_one()


def split_runs(session, run_ids: Sequence[int], shares: int) -> list[list[Part]]:
    """`shares` lists of parts that together hold every prediction of the runs once."""
    out: list[list[Part]] = [[] for _ in range(shares)]
    for run_id in sorted(set(run_ids)):
        n = session.execute(select(func.count()).select_from(m.Prediction)
                            .where(m.Prediction.run_id == run_id)).scalar_one()
        if n == 0:
            continue
        bounds: list[int | None] = [None]
        for k in range(1, shares):
            bounds.append(session.execute(
                select(m.Prediction.step_id).where(m.Prediction.run_id == run_id).order_by(m.Prediction.step_id)
                .offset(k * n // shares).limit(1)).scalar())
        bounds.append(None)
        for k in range(shares):
            out[k].append((run_id, bounds[k], bounds[k + 1]))
    return out


def on_every_core(here: Callable[[list[Part]], Any], elsewhere: Callable[..., Any], shares: list[list[Part]],
                  *args: Any, workers: int | None = None) -> list[Any]:
    """here(share) in this process and elsewhere(share, *args) in `workers` worker processes (default: one fewer
    than there are shares), each share once. `elsewhere` and `args` must be picklable (a module-level function,
    plain values). Results in the order of the shares.

    The workers take shares from the front of the list, this process from the back, until they meet: a worker
    starts about a second later than this process (its imports), so a fixed half each left this process idle
    at the end while the worker finished. Give more shares than processes (split_runs with PIECES_PER_PROCESS)
    for the two ends to meet evenly."""
    if len(shares) == 1:
        return [here(shares[0])]
    workers = len(shares) - 1 if workers is None else workers
    context = multiprocessing.get_context("spawn")
    results: list[Any] = [None] * len(shares)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        pending = [pool.submit(elsewhere, share, *args) for share in shares]
        for at in range(len(shares) - 1, -1, -1):
            if not pending[at].cancel():  # a worker has it (and every one before it, in order)
                break
            results[at] = here(shares[at])
        for at, future in enumerate(pending):
            if not future.cancelled():
                results[at] = future.result()
    return results
