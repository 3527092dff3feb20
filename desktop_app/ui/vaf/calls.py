"""Work the page-variants window hands to the GUI's one browser thread (ui/render_service.py).

The callbacks run on the UI thread, and are skipped once the widget that asked is gone (a window
closed while its page still renders)."""

from __future__ import annotations

from collections.abc import Callable

import shiboken6


def in_browser(service, owner, fn: Callable, on_done: Callable[[object], None],
               on_error: Callable[[Exception], None]):
    """fn(renderer) in the browser thread; on_done(result) or on_error(exception) on the UI thread.
    service: the RenderService, or a function giving the current one (the main window makes a new one
    when the browser is changed in the settings)."""
    if not hasattr(service, "submit"):
        service = service()

    def done(result) -> None:
        if shiboken6.isValid(owner):
            on_done(result)

    def failed(exc) -> None:
        if shiboken6.isValid(owner):
            on_error(exc)

    return service.submit(fn, done, failed)


def error_text(exc: BaseException) -> str:
    """One line for a message: the exception's own words (a KeyError's without its quotes)."""
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0])
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0] if len(text) > 400 else text
