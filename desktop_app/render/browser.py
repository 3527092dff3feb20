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


def launch_args() -> list[str]:
    args = list(LAUNCH_ARGS)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")  # Chromium refuses to start its sandbox as root (CI containers)
    return args
