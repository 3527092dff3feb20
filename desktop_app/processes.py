"""Whether a process of this machine still runs, and whether it is still the process that was meant (psutil;
ADR 0030). Asked by the orphan sweep about the writers that left a marker in a media folder
(store/media_sweep.py) and by the crash log about the sessions that left a hard-crash log (crash.py).

A process id is reused once its process is gone, so "a process with id 4711 runs" alone can keep a dead
writer's files forever (or, on a busy machine, spare them for a while). Where the caller knows a moment at
which the process it means was running (a marker's first write, a log's last write), a process with that id
that started after that moment is another one, and the one meant is gone.
"""

from __future__ import annotations

import psutil

# psutil derives a process's start on Linux from the boot time, which /proc gives in whole seconds, and the
# moments callers hold are whole seconds too: a process is taken to be another one only when it started
# later than this after the moment.
CLOCK_SLACK_S = 2.0


def pid_alive(pid: int, running_at: float | None = None) -> bool:
    """Whether process `pid` of this machine runs (a zombie, ended and not yet reaped, does not).
    `running_at`: a time (epoch seconds) at which the process meant was known to run; a process with the same
    id that started after it is a different one, so the answer is False. Another user's process whose start
    cannot be read counts as running: sparing its files is the safe mistake."""
    if pid <= 0:
        return False
    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return False
        if running_at is not None and process.create_time() > running_at + CLOCK_SLACK_S:
            return False
    except psutil.NoSuchProcess:  # ZombieProcess too
        return False
    except psutil.AccessDenied:
        return True
    return True
