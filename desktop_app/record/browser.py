"""A browser for recording and replaying: Chromium with our offline routing and the page scripts.

Launched like the renderer's (render/browser.py: no download, the quiet flags, the dead proxy that catches
what routing cannot see), headed only when a person records. A web page named by the user is the one case
where the dead proxy goes: the user asked for the network.
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass

from desktop_app.record.site import Site
from desktop_app.render.browser import check_browser_before_driver, find_browser, launch_args
from desktop_app.render.renderer import _NO_PEER_CONNECTIONS, DESKTOP, _playwright

VIEWPORT = (DESKTOP.width, DESKTOP.height)


class NoDisplay(ValueError):
    """A headed recording asked for where no window can open (said in one line, as bad input is)."""


def has_display() -> bool:
    """Whether a window can open: always on Windows and macOS, on Linux when X11 or Wayland is there."""
    if sys.platform in ("win32", "darwin"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


@dataclass
class Session:
    browser: object
    context: object
    page: object

    def close(self) -> None:
        with contextlib.suppress(Exception):  # a person may have closed the window already
            self.context.close()
        with contextlib.suppress(Exception):
            self.browser.close()


def launch(online: bool = False, headed: bool = False, browser_path: str = ""):
    """Chromium with the renderer's flags; `online` (a web page the user named) without the dead proxy."""
    check_browser_before_driver(browser_path)
    pw = _playwright()
    args = launch_args()
    if online:
        args = [a for a in args if not a.startswith(("--proxy-server", "--proxy-bypass-list"))]
    return pw.chromium.launch(executable_path=find_browser(pw, browser_path), args=args, headless=not headed)


def new_context(browser, site: Site, scripts: list[str], viewport: tuple[int, int] = VIEWPORT):
    """A fresh context whose every page gets `scripts` and the site's routing (one per recording or live task)."""
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]}, device_scale_factor=1,
                                  locale="en-US", timezone_id="UTC", color_scheme="light")
    try:
        context.add_init_script(_NO_PEER_CONNECTIONS)
        for script in scripts:
            context.add_init_script(script)
        context.route("**/*", site.serve)
    except BaseException:
        context.close()
        raise
    return context


def open_session(site: Site, scripts: list[str], headed: bool = False, browser_path: str = "",
                 viewport: tuple[int, int] = VIEWPORT) -> Session:
    """A browser on a fresh context whose every page gets `scripts` and the site's routing (not yet navigated)."""
    if headed and not has_display():
        raise NoDisplay("a headed recording needs a display (none here: DISPLAY and WAYLAND_DISPLAY are unset); "
                        "record headless from a script (api.record with actions=...) or on a desktop")
    browser = launch(site.online, headed, browser_path)
    try:
        context = new_context(browser, site, scripts, viewport)
        page = context.new_page()
    except BaseException:
        browser.close()
        raise
    return Session(browser, context, page)
