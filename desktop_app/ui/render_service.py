"""One long-lived thread that owns a headless browser for the GUI (re-render after a text
edit, regenerate). Playwright's sync API is tied to the thread that started it, and starting
a browser costs about half a second, so the GUI keeps one warm in its own thread: the one documented
exception to running work in a Task (ui/tasks.py); its results reach the UI thread the same way."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from PySide6.QtCore import QObject, Signal

from desktop_app.render.renderer import Renderer


class _Relay(QObject):
    done = Signal(object, object)  # callback, result
    failed = Signal(object, object)  # callback, exception


class RenderService:
    def __init__(self, browser_path: str = ""):
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="renderer")
        self._renderer: Renderer | None = None
        self._browser_path = browser_path
        self._relay = _Relay()
        self._relay.done.connect(lambda cb, result: cb(result))
        self._relay.failed.connect(lambda cb, exc: cb(exc))

    def _with_renderer(self, fn: Callable[[Renderer], object]):
        if self._renderer is None:
            self._renderer = Renderer(browser_path=self._browser_path)
            self._renderer.start()
        return fn(self._renderer)

    def submit(self, fn: Callable[[Renderer], object], on_done: Callable[[object], None],
               on_error: Callable[[Exception], None]) -> Future:
        """fn(renderer) runs in the browser thread; the callbacks run on the UI thread."""
        future = self._pool.submit(self._with_renderer, fn)

        def report(f: Future) -> None:
            exc = f.exception()
            if exc is None:
                self._relay.done.emit(on_done, f.result())
            else:
                self._relay.failed.emit(on_error, exc)

        future.add_done_callback(report)
        return future

    def shutdown(self) -> None:
        def close():
            if self._renderer is not None:
                self._renderer.close()
                self._renderer = None

        self._pool.submit(close).result(timeout=30)
        self._pool.shutdown(wait=True)
