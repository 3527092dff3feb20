"""OCR in a process of its own, for the window (issue 19: the window on a big project with OCR on in
350 MB; ADR 0027).

The detector's working memory (about 150 MB while it reads a 1280x800 screen, ONNX Runtime's arenas
that it keeps afterwards) and the models themselves would otherwise stay in the window's process for
the rest of the session. Here one long-lived worker holds the engines and reads the screens the window
asks for, one at a time: a request is an image file and the engine's settings, the answer the words and
element proposals (pipeline.analyse_file's result), pickled over a pipe. The window keeps the database:
the cache is read and written there as before, so results are exactly those of reading in-process.

The worker is started on first use with multiprocessing's "spawn" (a fresh interpreter, safe beside the
window's threads and the same on every OS; the installer's entry point calls freeze_support for it),
runs at a lower priority than the window, and ends with the window (a daemon process; it also stops when
its pipe closes). A worker that died (killed, out of memory) is started again for the next request once;
if that fails too the error says so, and the window goes on without OCR.

An idle worker leaves by itself (issue 36: the window and the OCR process together were 3.6 times labelme's
memory): after IDLE_EXIT_S without a request its memory goes back to the system, and the next request starts
a new one (the engines load again in a second or two; browsing screens with OCR on keeps it busy and alive).
A request sent just as it leaves finds the pipe closed and is sent again to a new worker, as after a crash.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from desktop_app.ocr.base import OcrUnavailable, Proposal, Word

ANSWER_WITHIN_S = 300  # a 1280x800 screen takes about a second; a huge image or a loaded machine, more
IDLE_EXIT_S = 120.0  # SCREENLAB_OCR_IDLE_EXIT_S overrides (0: never)
_ERRORS: dict[str, type[Exception]] = {"unavailable": OcrUnavailable, "os": OSError, "value": ValueError}


class OcrProcess:
    """The worker, seen from the window: analyse() blocks the calling thread (never the UI thread) until
    the worker answers."""

    def __init__(self, idle_exit_s: float | None = None) -> None:
        if idle_exit_s is None:
            idle_exit_s = _env_seconds("SCREENLAB_OCR_IDLE_EXIT_S", IDLE_EXIT_S)
        self.idle_exit_s = idle_exit_s
        self._lock = threading.Lock()
        self._process = None
        self._conn = None

    def analyse(self, path: Path, engine: str, language: str, options: dict[str, Any],
                cancelled: threading.Event | None = None) -> tuple[list[Word], list[Proposal], float]:
        """`cancelled` is the request's own flag, set by abandon(): the request may be abandoned before it even
        reaches the worker (the window closing while the calling thread still reads the cache), and must then
        start no worker."""
        with self._lock:
            for attempt in (1, 2):
                try:
                    self._abandoned_before_sending(cancelled, path)
                    self._start()
                    # abandon() may have come while the worker started (seconds on a busy machine), when it had no
                    # worker to kill: looked at again now the worker is there (abandon() sets the flag first)
                    self._abandoned_before_sending(cancelled, path)
                    self._conn.send((str(path), engine, language, options))
                    if not self._conn.poll(ANSWER_WITHIN_S):  # a hung worker must not hold the window's thread
                        self._stop()
                        raise OcrUnavailable(f"the OCR process gave no answer within {ANSWER_WITHIN_S} s for "
                                             f"{path}; it was stopped (the next screen starts a new one)")
                    kind, payload = self._conn.recv()
                    break
                except (EOFError, OSError) as exc:  # the worker died mid-request, or could not start
                    code = self._process.exitcode if self._process is not None else None
                    self._stop()
                    if cancelled is not None and cancelled.is_set():
                        raise OcrUnavailable(f"OCR of {path} stopped: the window closed before it ended") from exc
                    if attempt == 2:
                        raise OcrUnavailable(f"the OCR process stopped (exit code {code}): {exc or 'no answer'}; "
                                             "see the log for what it printed") from exc
        if kind == "ok":
            return payload
        raise _ERRORS.get(kind, RuntimeError)(payload)

    def _abandoned_before_sending(self, cancelled: threading.Event | None, path: Path) -> None:
        if cancelled is not None and cancelled.is_set():
            self._stop()  # stops the worker (or reaps the one abandon() killed)
            raise OcrUnavailable(f"OCR of {path} not started: the window closed before it began")

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None and self._process.is_alive() else None

    def close(self) -> None:
        with self._lock:
            self._stop()

    def abandon(self, cancelled: threading.Event) -> None:
        """From another thread, while analyse(..., cancelled) may be waiting (the window closing): the worker is
        killed, so that analyse() ends at once with OcrUnavailable instead of waiting for a reading nobody will
        see. On a busy machine the worker (at a lower priority) took minutes, and the window's close waited for
        it. The next request starts a new worker. The flag is set first: a request not yet sent sees it under
        the lock and starts no new worker (CI caught the window's close racing the request's start)."""
        cancelled.set()
        process = self._process
        if process is not None and process.is_alive():
            process.kill()

    def _start(self) -> None:
        if self._process is not None and self._process.is_alive():
            return
        self._stop()
        import multiprocessing  # with the first worker: the window imports this module at start (ADR 0057)

        context = multiprocessing.get_context("spawn")
        mine, theirs = context.Pipe()
        process = context.Process(target=serve, args=(theirs, self.idle_exit_s), name="screenlab-ocr", daemon=True)
        process.start()
        theirs.close()  # the worker's end: once the worker is gone, recv() here ends with EOFError
        self._process, self._conn = process, mine

    def _stop(self) -> None:
        if self._conn is not None:
            self._conn.close()
        if self._process is not None:
            self._process.join(timeout=5)  # it leaves once its pipe closes
            if self._process.is_alive():
                self._process.kill()
                self._process.join(timeout=5)
        self._process = self._conn = None


_shared: OcrProcess | None = None
_shared_lock = threading.Lock()


def shared_ocr_process() -> OcrProcess:
    """The one worker of this process (its engines load once, whichever window or task asks)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = OcrProcess()
        return _shared


def _env_seconds(name: str, default: float) -> float:
    try:
        return max(0.0, float(os.environ.get(name, default)))
    except ValueError:
        return default


def serve(conn, idle_exit_s: float = 0.0) -> None:
    """The worker's loop: one request at a time, until the window closes the pipe or, with idle_exit_s,
    no request came for that long."""
    _lower_priority()
    from desktop_app.ocr.pipeline import analyse_file  # not cache: the worker never opens the database

    while True:
        try:
            if idle_exit_s and not conn.poll(idle_exit_s):
                return  # idle: give the memory back; the window starts a new worker when it needs one
            path, engine, language, options = conn.recv()
        except (EOFError, OSError):
            return
        try:
            reply = ("ok", analyse_file(Path(path), engine, language, options))
        except OcrUnavailable as exc:
            reply = ("unavailable", str(exc))
        except OSError as exc:
            reply = ("os", str(exc))
        except ValueError as exc:
            reply = ("value", str(exc))
        except Exception as exc:  # anything else: the window shows it and goes on
            reply = ("other", f"{type(exc).__name__}: {exc}")
        try:
            conn.send(reply)
        except (EOFError, OSError):
            return


def _lower_priority() -> None:
    """Drawing and editing come first on a machine with few cores (the engines' threads inherit this)."""
    try:
        if hasattr(os, "nice"):
            os.nice(10)
        else:  # Windows
            import ctypes

            below_normal = 0x00004000
            ctypes.windll.kernel32.SetPriorityClass(ctypes.windll.kernel32.GetCurrentProcess(), below_normal)
    except (OSError, AttributeError):  # not allowed here: normal priority is still correct, only less polite
        pass
