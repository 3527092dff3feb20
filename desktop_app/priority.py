"""Lower the scheduling priority of the calling thread, for background work that must not slow the window.

On Linux a thread is a task of its own with its own nice value: raising it on a worker thread leaves the
UI thread alone, and threads the worker starts (an ONNX Runtime pool) inherit it. Elsewhere (macOS,
Windows) Python offers no per-thread call, and the work simply runs at normal priority.
"""

from __future__ import annotations

import os
import sys
import threading

BACKGROUND_NICE = 10


def background_priority() -> bool:
    """True when this thread now runs at the background priority."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        tid = threading.get_native_id()
        current = os.getpriority(os.PRIO_PROCESS, tid)
        if current < BACKGROUND_NICE:
            os.setpriority(os.PRIO_PROCESS, tid, BACKGROUND_NICE)
        return True
    except OSError:  # not allowed here (a sandbox): normal priority is still correct, only less polite
        return False


def in_background() -> bool:
    """Whether this thread runs at the background priority (background_priority, or started by a thread that
    did: Linux threads inherit it)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) >= BACKGROUND_NICE
    except OSError:
        return False
