"""Keeping the UI thread responsive while a worker thread of the same process works hard (one GIL).

Used by runs (ui/eval/run_controller.py) and by opening a folder of screenshots (ui/folder_wiring.py):
* `started()` freezes the garbage collector's view of the heap (gc.freeze()). Otherwise a full collection -
  every live object of the application - starts in the worker as it allocates and holds the GIL for 100-150 ms:
  the UI froze for that long (a run right after Start; a folder's import between two batches, measured by
  benchmarks/open_folder.py). Frozen objects are only never *collected*; they are the long-lived application
  state anyway (young garbage is collected first). Called again when the window took on much new state (the
  folder's project opened), it freezes that too.
* While work streams, the GIL switch interval is 1 ms instead of 5 (restored when the last one ends): the UI
  thread gives the GIL up on every SQLite and many Qt calls and then waits up to one interval to get it back.
"""

from __future__ import annotations

import gc
import sys

SWITCH_INTERVAL = 0.001  # seconds, while a worker streams
_state = {"workers": 0, "saved": None}  # process-wide: every busy worker together


def freeze_heap() -> None:
    gc.collect(1)  # young garbage first (milliseconds), then the rest of the heap is frozen
    gc.freeze()


def started() -> None:
    freeze_heap()
    if _state["workers"] == 0:
        _state["saved"] = sys.getswitchinterval()
        sys.setswitchinterval(min(_state["saved"], SWITCH_INTERVAL))
    _state["workers"] += 1


def ended() -> None:
    _state["workers"] = max(0, _state["workers"] - 1)
    if _state["workers"] == 0 and _state["saved"] is not None:
        sys.setswitchinterval(_state["saved"])
        _state["saved"] = None
