"""The sample list's paint, alone and beside a thread running Python (a folder's import), ADR 0070.

    .venv/bin/python benchmarks/list_paint.py [--repaints 60] [--runs 3] [--samples 2000]

A project of --samples screens (benchmarks/import_scale.py's generator), its sample list shown as in the window
(SampleBrowser, 520x760: some 30 rows of 7 columns on screen), and its viewport repainted --repaints times; the
median paint is printed for two models in turns, in the same process:
  - the list's model as it is (RolesInOneCall: a cell's roles answered in one call into Python);
  - the same model without it, as Qt's default has it: a call into Python for each role of each cell.
Each is timed idle, and with a second thread spinning in Python with the switch interval the window uses while
an import streams (1 ms, ui/busy_worker.py): every call from C++ into Python then waits for that thread to let
go of the GIL. The 1-minute load average is printed beside each figure.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def _spin(stop: threading.Event) -> None:
    """Python bytecode until stopped: a thread that holds the GIL as an import's does."""
    x = 0
    while not stop.is_set():
        for i in range(1000):
            x += i


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repaints", type=int, default=60)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--samples", type=int, default=2000)
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("SCREENLAB_USER", "bench")
    from PySide6.QtCore import QAbstractTableModel
    from PySide6.QtWidgets import QApplication

    from desktop_app.formats.transfer import import_path
    from desktop_app.store.project import Project
    from desktop_app.ui.browser import EpisodeTableModel, SampleBrowser

    from benchmarks.import_scale import generate

    app = QApplication.instance() or QApplication([])

    class PerRole(EpisodeTableModel):
        """The model as Qt's default multiData has it: Qt's own (C++) method found first, so PySide calls no
        Python for it, and that calls data() from C++ once a role."""

        multiData = QAbstractTableModel.multiData  # noqa: N815 (Qt's name)

    with tempfile.TemporaryDirectory(prefix="screenlab-list-paint-") as tmp:
        project = Project.init(Path(tmp) / "project")
        import_path(project, generate(Path(tmp) / "data", args.samples), "screenlab")
        lists = {}
        for name, model_class in (("one call a cell", EpisodeTableModel), ("a call a role", PerRole)):
            browser = SampleBrowser(project)
            browser.model = model_class(project)
            browser.table.setModel(browser.model)
            browser.resize(520, 760)
            browser.show()
            lists[name] = browser
        for _ in range(10):
            app.processEvents()

        def paint(browser) -> float:
            viewport = browser.table.viewport()
            times = []
            for _ in range(args.repaints):
                started = time.perf_counter()
                viewport.repaint()
                times.append(time.perf_counter() - started)
            return statistics.median(times) * 1000

        print(f"the sample list's paint ({args.samples:,} samples, 520x760, median of {args.repaints} repaints, "
              f"{args.runs} runs in turns; {os.cpu_count()} cores)")
        for beside in (False, True):
            stop = threading.Event()
            if beside:
                saved = sys.getswitchinterval()
                sys.setswitchinterval(0.001)
                threading.Thread(target=_spin, args=(stop,), daemon=True).start()
            figures = {name: [] for name in lists}
            for _ in range(args.runs):
                for name, browser in lists.items():
                    figures[name].append(paint(browser))
            stop.set()
            if beside:
                sys.setswitchinterval(saved)
            where = "beside a thread running Python" if beside else "alone"
            ours, theirs = (statistics.median(figures[name]) for name in lists)
            print(f"   {where:32} one call a cell {ours:6.1f} ms, a call a role {theirs:6.1f} ms, "
                  f"ratio {ours / theirs:.2f}   {load()}")
        for browser in lists.values():
            browser.close()
        project.close()


if __name__ == "__main__":
    main()
