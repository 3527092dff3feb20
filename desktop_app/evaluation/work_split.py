"""A big evaluation counted on every core: the predictions split into shares, each counted by its own
process, the counts added up (issue 19: `screenlab eval` on a million predictions in seconds).

Scoring text answers is Python code a prediction at a time, so one process uses one core whatever the
machine has. Counting is a sum, so shares can be counted apart and added: a share is a list of parts,
each part a run's predictions whose step ids lie in a range (the unique index on (run, step) finds the
bounds and reads each part without sorting). Every run is cut into as many parts as there are shares,
so each share gets a slice of every run: text runs cost several times what point runs do, and the
shares stay even whatever mix of runs is asked for.

This process counts the last shares while the workers take the first ones. A worker is this process forked
where that is safe: on Linux, from a process with no other thread and no Qt (the command line, a script). It has
every module loaded and starts in milliseconds. Anywhere else (beside the window's threads, on macOS and
Windows) it is started fresh ("spawn"; the installer's entry point calls multiprocessing.freeze_support for
it), which costs about a second of imports, so spawned workers are only worth it for bigger evaluations
(ADR 0065). Either way a worker opens the project again from its address (a folder's database, or a server
whose password comes from the environment or the keyring as here: store/db.py) and never uses a connection
of this process.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.util
import os
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from typing import Any

from sqlalchemy import func, select

from desktop_app.gc_pause import heap_frozen
from desktop_app.store import models as m

Part = tuple[int, int | None, int | None]  # (run id, first step id, step id where the next part starts)
PARALLEL_MIN = 200_000  # predictions; below this a spawned worker's start-up costs more than it saves
FORKED_MIN = 50_000  # the same for a forked worker, which starts at once: below it the split and the merge cost more
MAX_SHARES = 4  # more processes add memory and start-up, and a laptop has other work to do
PIECES_PER_PROCESS = 8  # shares per process, so the processes' ends meet evenly (on_every_core): at the end one
# waits for the other's last share at most


def start_method() -> str:
    """How on_every_core starts its workers: "fork" on Linux from a process with no other Python thread and no Qt,
    else "spawn". A fork copies only the calling thread, and a lock another thread held stays locked in the copy;
    Qt starts threads of its own that Python does not count, so a process that loaded it (the window) spawns.
    OpenBLAS's threads (numpy's) are let be: it stops and restarts them around a fork (pthread_atfork). macOS's
    system libraries do not survive a fork (Python's own default there is spawn)."""
    if sys.platform.startswith("linux") and threading.active_count() == 1 and "PySide6.QtCore" not in sys.modules:
        return "fork"
    return "spawn"


def parallel_minimum() -> int:
    """From how many predictions counting on every core pays, with this process's way of starting workers."""
    return FORKED_MIN if start_method() == "fork" else PARALLEL_MIN


def share_count(predictions: int, cores: int | None = None, minimum: int | None = None) -> int:
    """How many processes count `predictions`: one when they are few (below `minimum`, default
    parallel_minimum()) or the machine has one core."""
    cores = cores if cores is not None else (os.cpu_count() or 1)
    minimum = parallel_minimum() if minimum is None else minimum
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


def at_worker_exit(close: Callable[[], Any]) -> None:
    """`close()` when this worker process ends, however it was started: a forked worker ends with os._exit,
    which skips atexit; multiprocessing's own finalizers run at the end of either kind."""
    multiprocessing.util.Finalize(None, close, exitpriority=10)


def on_every_core(here: Callable[[list[Part]], Any], elsewhere: Callable[..., Any], shares: list[list[Part]],
                  *args: Any, workers: int | None = None) -> list[Any]:
    """here(share) in this process and elsewhere(share, *args) in `workers` worker processes (default: one fewer
    than there are shares), each share once. `elsewhere` and `args` must be picklable (a module-level function,
    plain values). Results in the order of the shares.

    The workers take shares from the front of the list, this process from the back, until they meet: a worker
    starts about a second later than this process (its imports), so a fixed half each left this process idle
    at the end while the worker finished. Give more shares than processes (split_runs with PIECES_PER_PROCESS)
    for the two ends to meet evenly. Each process takes its next share only when it starts it (two counters
    shared by all, under their lock): a pool's queue handed a worker the share after the one it was counting,
    which this process could not take back, so at the end this process sat idle for that share's time (0.35 s
    of 2.5 s on 100,000 text answers)."""
    if len(shares) == 1:
        return [here(shares[0])]
    workers = len(shares) - 1 if workers is None else workers
    method = start_method()
    context = multiprocessing.get_context(method)
    ends = context.Array("q", [0, len(shares)])  # the next share from the front; one past the next from the back
    results: list[Any] = [None] * len(shares)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_keep_ends,
                             initargs=(ends,)) as pool:
        # the forks happen at the first submit (all of them, before the pool's own thread starts). Frozen, what this
        # process holds is never collected in a worker: no inherited connection or file is closed there (a
        # database connection's close would speak on this process's socket), and its pages stay shared rather
        # than copied when the collector walks them
        with heap_frozen() if method == "fork" else nullcontext():
            pending = [pool.submit(_from_the_front, elsewhere, shares, args) for _ in range(workers)]
        try:
            while (at := _take(ends, front=False)) is not None:
                results[at] = here(shares[at])
        except BaseException:
            with ends.get_lock():  # the workers start no other share
                ends[0] = ends[1]
            raise
        for future in pending:
            for at, result in future.result().items():
                results[at] = result
    return results


_ENDS: Any = None  # in a worker: on_every_core's shared counters, set when the worker starts


def _keep_ends(ends) -> None:
    global _ENDS
    _ENDS = ends


def _take(ends, front: bool) -> int | None:
    """The index of the next share from that end, now taken, or None when the two ends have met."""
    with ends.get_lock():
        if ends[0] >= ends[1]:
            return None
        if front:
            ends[0] += 1
            return ends[0] - 1
        ends[1] -= 1
        return ends[1]


def _from_the_front(elsewhere: Callable[..., Any], shares: list[list[Part]], args: tuple) -> dict[int, Any]:
    """In a worker: elsewhere(share, *args) for each share it takes from the front, until the two ends meet."""
    out = {}
    while (at := _take(_ENDS, front=True)) is not None:
        out[at] = elsewhere(shares[at], *args)
    return out
