"""Finding a Chromium-family browser for Playwright without downloading one.

Playwright's own browser is used when it was installed; otherwise an installed
Chromium, Chrome or Edge. Nothing here ever triggers a download.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome",
          "microsoft-edge", "microsoft-edge-stable", "msedge")
_WELL_KNOWN = {
    "win32": [r"C:\Program Files\Google\Chrome\Application\chrome.exe",
              r"C:\Program Files (x86)\Google\Chrome\Application\chrome.exe",
              r"C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe",
              r"C:\Program Files\Microsoft\Edge\Application\msedge.exe"],
    "darwin": ["/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
               "/Applications/Chromium.app/Contents/MacOS/Chromium",
               "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge"],
}
# Flags for a quiet, offline, reproducible headless browser. Without the
# background-networking flags Chromium keeps trying to reach Google's hosts.
LAUNCH_ARGS = [
    "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-default-apps", "--mute-audio",
    "--font-render-hinting=none", "--force-color-profile=srgb", "--hide-scrollbars",
    # what request routing does not see (WebSocket, WebRTC, requests to IP literals from workers) goes to
    # a proxy that is not there, loopback included, and WebRTC may not send UDP around it
    "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
]


class BrowserNotFound(RuntimeError):
    pass


INSTALL_HINT = (
    "ScreenLab renders pages with an installed Chromium-family browser and never downloads one. "
    "Install one of: Google Chrome, Microsoft Edge or Chromium (Debian/Ubuntu: sudo apt-get install chromium; "
    "Windows/macOS: install Chrome or Edge), or set SCREENLAB_BROWSER to the browser's executable."
)


def find_browser(playwright=None, configured: str = "") -> str:
    """SCREENLAB_BROWSER, else Playwright's own browser, else an installed Chromium/Chrome/Edge,
    else the path chosen in Settings."""
    override = os.environ.get("SCREENLAB_BROWSER")
    if override:
        if Path(override).is_file():
            return override
        raise BrowserNotFound(f"SCREENLAB_BROWSER points to {override}, which does not exist. {INSTALL_HINT}")
    if playwright is not None:
        try:
            own = playwright.chromium.executable_path
        except Exception:  # older drivers raise when their browser is absent
            own = ""
        if own and Path(own).is_file():
            return own
    for name in _NAMES:
        found = shutil.which(name)
        if found:
            return found
    for path in _WELL_KNOWN.get(sys.platform, []):
        if Path(path).is_file():
            return path
    if configured and Path(configured).is_file():
        return configured
    raise BrowserNotFound(f"No Chromium, Chrome or Edge found. {INSTALL_HINT}")


def _playwright_browsers_dir() -> Path | None:
    """Where Playwright keeps browsers it installed (`playwright install`): None when inside its own package
    (PLAYWRIGHT_BROWSERS_PATH=0), which only its driver can answer for."""
    override = os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
    if override == "0":
        return None
    if override:
        return Path(override)
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local")) / "ms-playwright"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "ms-playwright"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ms-playwright"


def check_browser_before_driver(configured: str = "") -> None:
    """Raise BrowserNotFound when no browser can exist, before Playwright's driver is started: an installer's
    driver (Node.js and its JavaScript, 124 MB unpacked) is unpacked on its first start, which is wasted work and
    disk when there is nothing for it to drive (issue 38). Only Playwright's own browser needs the driver to be
    found exactly; whether one was installed at all is seen from its folder, so that case goes on."""
    try:
        find_browser(None, configured)
        return
    except BrowserNotFound:
        if os.environ.get("SCREENLAB_BROWSER"):
            raise  # it names a missing file: the driver could not help
    own = _playwright_browsers_dir()
    if own is None or any(own.glob("chromium*")):
        return
    raise BrowserNotFound(f"No Chromium, Chrome or Edge found. {INSTALL_HINT}")


def launch_args() -> list[str]:
    args = list(LAUNCH_ARGS)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")  # Chromium refuses to start its sandbox as root (CI containers)
    return args
