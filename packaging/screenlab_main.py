"""Entry point of the packaged app (the script PyInstaller freezes); `screenlab` from pip uses
desktop_app.__main__:main directly.

Besides starting the app it
* installs the crash handler first (desktop_app.crash), so even an import that fails inside the
  bundle leaves a log in the user's log folder instead of a silent exit of a windowed app;
* gives child processes (the Playwright driver, the system Chromium it launches, tesseract)
  the library path the user had: PyInstaller's bootloader puts the bundle's own libraries first
  on LD_LIBRARY_PATH, and a system browser must not load those;
* lets multiprocessing start its workers from this executable (freeze_support: a worker is the
  bundle started again with multiprocessing's arguments; evaluation/work_split.py uses them);
* answers `--bundle-selfcheck` (packaging/bundle_selfcheck.py): checks that everything the
  bundle must contain is there and works (OCR models, migrations, templates, Playwright driver...).
"""

from __future__ import annotations

import os
import sys


def _restore_child_environment() -> None:
    if not getattr(sys, "frozen", False):
        return
    for var in ("LD_LIBRARY_PATH", "LIBPATH"):  # Linux, AIX
        original = os.environ.pop(var + "_ORIG", None)
        if original is not None:
            os.environ[var] = original
        elif var in os.environ and sys.platform.startswith("linux"):
            del os.environ[var]


def main() -> int:
    import multiprocessing

    multiprocessing.freeze_support()  # a worker process runs its task here and exits
    _restore_child_environment()
    try:
        from desktop_app import crash

        crash.install()
    except Exception as exc:  # a read-only home must not stop the app; say so and go on
        print(f"ScreenLab: crash logging is off ({exc!r})", file=sys.stderr or sys.__stderr__)
    if len(sys.argv) > 1 and sys.argv[1] == "--bundle-selfcheck":
        from bundle_selfcheck import main as selfcheck

        return selfcheck(sys.argv[2:])
    from desktop_app.__main__ import main as screenlab_main

    return screenlab_main()


if __name__ == "__main__":
    sys.exit(main())
