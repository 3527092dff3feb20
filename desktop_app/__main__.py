"""The program's entry point (`screenlab`, `python -m desktop_app`, the installer's executable).

It is the one module that wires the command line to the window: the CLI never imports the UI
(the layer rules in tests/layers.py), so the window's launcher is handed to it here, imported only
when a window is actually opened (`screenlab --version` stays free of Qt).
"""

from __future__ import annotations

import gc
import sys


def launch_gui(project=None, media=None, smoke: bool = False) -> int:
    # the cycle collector paused through the window's imports too, as run_gui pauses it until the first paint:
    # they make hundreds of thousands of objects and few cycles (about 20 ms of a launch's collections)
    gc.disable()
    try:
        from desktop_app.ui.app import run_gui
    except ImportError as exc:  # the GUI needs Qt's system libraries; say which one is missing
        gc.enable()
        print(f"error: cannot start the GUI: {exc}", file=sys.stderr)
        return 2
    return run_gui(project, media=media, smoke=smoke)


def main(argv: list[str] | None = None) -> int:
    from desktop_app.cli.main import main as cli_main

    return cli_main(argv, gui=launch_gui)


if __name__ == "__main__":
    sys.exit(main())
