"""Crash logs: no silent exits.

    from desktop_app import crash
    crash.install()                  # as early as possible, before Qt is imported

`install(log_dir=None)` (default folder: `desktop_app.paths.user_log_dir()`):

* `sys.excepthook` and `threading.excepthook` write `crash-YYYYmmdd-HHMMSS-<pid>-<n>.log` with the
  traceback, the ScreenLab / Python / Qt / key package versions and the platform, print one line
  naming the file to stderr (when there is one), and, when a QApplication exists, show a dialog
  pointing to the file (the dialog the window registers with `register_window_dialog`:
  `ui/crash_dialog.show_crash_dialog`, queued to the GUI thread, so a worker thread may crash too). Ctrl+C (KeyboardInterrupt) goes to the previous hook unlogged.
* `faulthandler` writes into `faulthandler-YYYYmmdd-HHMMSS-<pid>.log` in the same folder, so a hard
  crash (segfault in a C extension, abort in Qt) still leaves the Python stack of every thread.
  The file is removed at a normal exit when nothing was dumped into it; `previous_hard_crashes()`
  lists the ones left behind by earlier sessions that died hard (for a notice at the next start).
* `note(line)` writes how far the session got into that log (STARTING: the window's display is being opened,
  STARTED: it is open) and what Qt said meanwhile, so that the next start tells a window that could not start
  (no display, no platform plugin: Qt aborts) from a crash: `previous_session_notice()`.

What a log never contains: environment variables, API keys, project contents. Exception messages
are written, with anything that looks like a key (`sk-...`, `gsk_...`, `Bearer ...`, the value of an
environment variable whose name says KEY/TOKEN/SECRET/PASSWORD, a password in a database URL) and every
key the process can tell by value (handed out or stored here, or read from the environment variables and
keyring entries the agent profiles and Settings name: `secrets.known_keys`) replaced by `***`.

This module imports no Qt at module level and only the standard library before a crash happens.
`install` is idempotent; `uninstall` restores the previous hooks (tests).
"""

from __future__ import annotations

import atexit
import contextlib
import datetime as _dt
import faulthandler
import os
import platform
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from desktop_app.secrets import redact

MAX_LOGS_PER_SESSION = 20  # a crash in a paint loop must not fill the disk
KEEP_LOGS = 50  # older crash-*.log files are pruned at install
_PACKAGES = (("PySide6", "PySide6"), ("numpy", "numpy"), ("opencv-python-headless", "cv2"),
             ("onnxruntime", "onnxruntime"), ("rapidocr", "rapidocr"), ("playwright", "playwright"),
             ("openai", "openai"), ("SQLAlchemy", "sqlalchemy"), ("alembic", "alembic"))


class _State:
    log_dir: Path | None = None
    fault_file = None  # the open file faulthandler writes into (must stay open)
    fault_path: Path | None = None
    fault_header = 0
    count = 0
    previous_sys_hook: Callable | None = None
    previous_thread_hook: Callable | None = None
    dialog_hook: Callable[[Path, str], None] | None = None
    window_dialog: Callable[[Path, str], None] | None = None  # registered by the UI when it starts
    lock = threading.Lock()


_state = _State()


# --------------------------------------------------------------------------- public API


def install(log_dir: Path | str | None = None, *, dialog: bool = True) -> Path:
    """Install the hooks; returns the folder crash logs go to. Safe to call more than once
    (a second call only changes the folder / dialog setting)."""
    if log_dir is None:
        from desktop_app.paths import user_log_dir

        log_dir = user_log_dir()
    folder = Path(log_dir)
    folder.mkdir(parents=True, exist_ok=True)
    with _state.lock:
        first = _state.log_dir is None
        _state.log_dir = folder
        _state.dialog_hook = _default_dialog_hook if dialog else None
    if first:
        _state.previous_sys_hook = sys.excepthook
        _state.previous_thread_hook = threading.excepthook
        sys.excepthook = _sys_hook
        threading.excepthook = _thread_hook
        atexit.register(_close_faulthandler)
    _enable_faulthandler(folder)
    _prune(folder)
    return folder


def uninstall() -> None:
    """Restore the hooks that were there before `install` and stop faulthandler (for tests)."""
    with _state.lock:
        if _state.log_dir is None:
            return
        _state.log_dir = None
    if sys.excepthook is _sys_hook and _state.previous_sys_hook is not None:
        sys.excepthook = _state.previous_sys_hook
    if threading.excepthook is _thread_hook and _state.previous_thread_hook is not None:
        threading.excepthook = _state.previous_thread_hook
    _close_faulthandler()
    atexit.unregister(_close_faulthandler)
    _state.count = 0


def set_dialog_hook(hook: Callable[[Path, str], None] | None) -> None:
    """Replace what is called after a log was written: hook(log_path, one_line_summary).
    None: no dialog. The default shows the window's dialog (register_window_dialog) when a QApplication exists."""
    _state.dialog_hook = hook


def register_window_dialog(show: Callable[[Path, str], None] | None) -> None:
    """The window's crash dialog, shown by the default hook while a QApplication runs. The UI
    registers it when it starts (ui/app.py): the core never imports the UI."""
    _state.window_dialog = show


def log_dir() -> Path | None:
    return _state.log_dir


# how far a session got, noted in its hard-crash log (ui/app.py notes them)
STARTING = "starting the window's display"
STARTED = "the window's display is open"
_NOTE = "note: "


def note(line: str) -> None:
    """Add a line to this session's hard-crash log: how far it got, or what Qt said while it started. Part of
    the log's header: a session that ends normally still leaves nothing behind."""
    fh = _state.fault_file
    if fh is None:
        return
    text = "".join(f"{_NOTE}{part}\n" for part in redact(line).splitlines() if part.strip())
    with _state.lock, contextlib.suppress(OSError, ValueError):
        fh.write(text)
        fh.flush()
        _state.fault_header += len(text.encode("utf-8"))


@dataclass(frozen=True)
class SessionNotice:
    """What the next start tells about a session that died hard."""

    title: str
    text: str
    log: Path


def previous_session_notice(folder: Path | None = None) -> SessionNotice | None:
    """The newest hard crash of an earlier session (previous_hard_crashes), worded for the person: a window
    whose display never opened is "the window could not start: <what Qt said>", not a crash."""
    found = previous_hard_crashes(folder)
    if not found:
        return None
    log = found[-1]
    try:
        notes = [line[len(_NOTE):] for line in log.read_text(encoding="utf-8", errors="replace").splitlines()
                 if line.startswith(_NOTE)]
    except OSError:
        notes = []
    if STARTING in notes and STARTED not in notes:
        said = list(dict.fromkeys(n for n in notes if n not in (STARTING, STARTED)))  # Qt's words, in order
        reason = "\n".join(said) or "the session stopped while its display was being opened"
        return SessionNotice("ScreenLab's window could not start last time",
                             f"The window could not start: {reason}\n\nWhat was known about it is in:\n{log}", log)
    return SessionNotice("ScreenLab stopped unexpectedly last time",
                         f"The last session ended in a crash. What was known about it is in:\n{log}\n\n"
                         "Your edits up to that moment were saved.", log)


def write_crash_log(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None,
                    thread_name: str | None = None, folder: Path | None = None) -> Path:
    """Write one crash log and return its path (also usable for errors caught and reported)."""
    folder = Path(folder or _state.log_dir or _fallback_dir())
    folder.mkdir(parents=True, exist_ok=True)
    with _state.lock:
        _state.count += 1
        n = _state.count
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = folder / f"crash-{stamp}-{os.getpid()}-{n}.log"
    text = crash_report(exc_type, exc, tb, thread_name)
    path.write_text(text, encoding="utf-8", errors="replace")
    return path


def crash_report(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None,
                 thread_name: str | None = None) -> str:
    """The text of a crash log: summary, environment facts (no environment values), traceback."""
    trace = "".join(traceback.format_exception(exc_type, exc, tb))
    lines = [
        f"ScreenLab crashed: {summary(exc_type, exc)}",
        f"time: {_dt.datetime.now().astimezone().isoformat(timespec='seconds')}",
        f"thread: {thread_name or threading.current_thread().name}",
        "",
        *environment_facts(),
        "",
        "Traceback:",
        redact(trace).rstrip(),
        "",
    ]
    return "\n".join(lines)


def summary(exc_type: type[BaseException], exc: BaseException) -> str:
    message = redact(str(exc)).strip().splitlines()
    first = message[0] if message else ""
    return f"{exc_type.__name__}: {first[:300]}" if first else exc_type.__name__


def environment_facts() -> list[str]:
    """Versions and platform. Deliberately no environment variables, no user name, no keys."""
    try:
        from desktop_app import __version__
    except Exception:  # a broken install is exactly when a crash log is needed
        __version__ = "?"
    frozen = "frozen bundle" if getattr(sys, "frozen", False) else "python install"
    facts = [
        f"ScreenLab {__version__} ({frozen})",
        f"Python {platform.python_version()} ({platform.python_implementation()}, {sys.executable})",
        # not platform.platform(): on Linux it runs `uname -p` in a subprocess, 5-12 ms of every launch's log header
        f"platform: {platform.system()} {platform.release()} ({platform.machine()}, {_libc()})",
    ]
    qt = sys.modules.get("PySide6.QtCore")
    if qt is not None:
        facts.append(f"Qt: {getattr(qt, 'qVersion', lambda: '?')()}, "
                     f"platform plugin {_qt_platform_name()}")
    facts.append("packages: " + ", ".join(_package_versions()))
    if len(sys.argv) > 1:
        facts.append("arguments: " + redact(" ".join(sys.argv[1:])))
    return facts


def previous_hard_crashes(folder: Path | None = None) -> list[Path]:
    """Hard crashes of earlier sessions, as crash logs: each faulthandler log holding a dump is
    renamed to `crash-...-native.log` (so it is reported once) and returned. Logs of sessions that
    merely ended without cleaning up (killed, power loss: header only) are removed; logs of other
    ScreenLab processes still running are left alone."""
    folder = Path(folder or _state.log_dir or _fallback_dir())
    found = []
    for path in sorted(folder.glob("faulthandler-*.log")):
        if path == _state.fault_path or _session_running(path):
            continue
        try:
            body = path.read_text(encoding="utf-8", errors="replace")
            if _has_dump(body):
                target = path.with_name("crash-" + path.name.removeprefix("faulthandler-")[:-4] + "-native.log")
                path.replace(target)
                found.append(target)
            else:
                path.unlink()
        except OSError:  # in use (Windows) or gone
            continue
    return found


def _pid_of(path: Path) -> int:
    try:
        return int(path.stem.rsplit("-", 1)[1])
    except (IndexError, ValueError):
        return -1


def _session_running(path: Path) -> bool:
    """Whether the process that writes this log still runs. The log was last written while its process ran, so
    a process with that id started after that is another one that got the id later (processes.pid_alive)."""
    pid = _pid_of(path)
    if pid == os.getpid():
        return True
    from desktop_app.processes import pid_alive  # psutil, only when asked: not in a crash's path

    try:
        written = path.stat().st_mtime
    except OSError:
        return True  # gone or unreadable meanwhile: not ours to judge
    return pid_alive(pid, written)


# --------------------------------------------------------------------------- hooks


def _sys_hook(exc_type, exc, tb) -> None:
    if issubclass(exc_type, KeyboardInterrupt | SystemExit):
        (_state.previous_sys_hook or sys.__excepthook__)(exc_type, exc, tb)
        return
    _report(exc_type, exc, tb, threading.current_thread().name)


def _thread_hook(args: threading.ExceptHookArgs) -> None:
    if args.exc_type is SystemExit:
        return
    name = args.thread.name if args.thread is not None else "unknown thread"
    _report(args.exc_type, args.exc_value, args.exc_traceback, name)


def _report(exc_type, exc, tb, thread_name: str) -> None:
    path = None
    if _state.count < MAX_LOGS_PER_SESSION:
        try:
            path = write_crash_log(exc_type, exc, tb, thread_name)
        except Exception as log_error:  # the folder is gone or read-only: still say something
            _stderr(f"ScreenLab: could not write a crash log ({log_error!r})")
    else:
        _state.count += 1
    text = summary(exc_type, exc)
    where = f"; details in {path}" if path else ""
    _stderr(redact("".join(traceback.format_exception(exc_type, exc, tb))).rstrip())
    _stderr(f"ScreenLab: unexpected error: {text}{where}")
    hook = _state.dialog_hook
    if hook is not None and path is not None:
        try:
            hook(path, text)
        except Exception as dialog_error:
            _stderr(f"ScreenLab: could not show the crash dialog ({dialog_error!r})")


def _default_dialog_hook(path: Path, text: str) -> None:
    qtwidgets = sys.modules.get("PySide6.QtWidgets")  # only looked up: Qt is never imported here
    window_dialog = _state.window_dialog
    if window_dialog is not None and qtwidgets is not None and qtwidgets.QApplication.instance() is not None:
        window_dialog(path, text)
    elif sys.platform == "win32" and sys.stderr is None:
        # a windowed build that crashed before Qt was up: no console, so a native message box
        _windows_message_box(f"ScreenLab could not start:\n{text}\n\nDetails were written to:\n{path}")


def _windows_message_box(text: str) -> None:
    try:
        import ctypes

        ctypes.windll.user32.MessageBoxW(None, text, "ScreenLab", 0x10)  # MB_ICONERROR
    except Exception:
        pass


# --------------------------------------------------------------------------- faulthandler


def _enable_faulthandler(folder: Path) -> None:
    if _state.fault_path is not None and _state.fault_path.parent == folder and _state.fault_file:
        return
    _close_faulthandler()
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = folder / f"faulthandler-{stamp}-{os.getpid()}.log"
    try:
        fh = open(path, "w", encoding="utf-8")  # noqa: SIM115 (must stay open for faulthandler)
        header = ("ScreenLab hard-crash log (Python faulthandler). If this file has more than these lines,\n"
                  "the session that wrote it ended in a crash; the stacks of all threads follow.\n"
                  + "\n".join(environment_facts()) + "\n\n")
        fh.write(header)
        fh.flush()
        faulthandler.enable(file=fh, all_threads=True)
    except OSError as exc:
        _stderr(f"ScreenLab: could not open {path} for hard-crash logs ({exc})")
        return
    _state.fault_file, _state.fault_path, _state.fault_header = fh, path, len(header.encode("utf-8"))


def _close_faulthandler() -> None:
    fh, path = _state.fault_file, _state.fault_path
    if fh is None:
        return
    with contextlib.suppress(Exception):
        faulthandler.disable()
    _state.fault_file, _state.fault_path = None, None
    try:
        fh.close()
        if path is not None and path.stat().st_size <= _state.fault_header:
            path.unlink()  # a normal exit: nothing was dumped
    except OSError:
        pass


def _has_dump(body: str) -> bool:
    return "Fatal Python error" in body or "Windows fatal exception" in body or "Current thread" in body \
        or "Thread 0x" in body


# --------------------------------------------------------------------------- helpers


def _prune(folder: Path) -> None:
    logs = sorted(folder.glob("crash-*.log"), key=lambda p: p.stat().st_mtime)
    for old in logs[:-KEEP_LOGS]:
        old.unlink(missing_ok=True)


def _fallback_dir() -> Path:
    try:
        from desktop_app.paths import user_log_dir

        return user_log_dir()
    except Exception:
        import tempfile

        return Path(tempfile.gettempdir()) / "ScreenLab-logs"


def _libc() -> str:
    name, version = platform.libc_ver()
    return f"{name} {version}" if name else "libc unknown"


def _package_versions() -> list[str]:
    """Versions of the key packages already imported (a crash handler imports nothing heavy: importlib.metadata,
    10-20 ms, only for a package without __version__)."""
    out = []
    for dist, module_name in _PACKAGES:
        module = sys.modules.get(module_name)
        if module is None:
            continue
        version = getattr(module, "__version__", None)
        if not version:
            try:
                from importlib import metadata

                version = metadata.version(dist)
            except Exception:
                version = "?"
        out.append(f"{dist} {version}")
    return out


def _qt_platform_name() -> str:
    try:
        widgets = sys.modules.get("PySide6.QtGui")
        app = widgets.QGuiApplication.instance() if widgets else None
        return app.platformName() if app is not None else "-"
    except Exception:
        return "?"


def _stderr(text: str) -> None:
    stream = sys.stderr
    if stream is None:  # windowed build on Windows: no console
        return
    with contextlib.suppress(Exception):
        print(text, file=stream, flush=True)
