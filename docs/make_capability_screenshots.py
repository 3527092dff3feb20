"""docs/capability-profile.png: the capability profile window on the Sphinx demo, two scripted agents;
docs/recorded-task.png: the Task tab (evaluators checked on the reference, completion label);
docs/agent-reads.png: what the agent reads of that screen (the element list);
docs/probe-editor.png: the knowledge-probe editor.

    QT_QPA_PLATFORM=offscreen .venv/bin/python docs/make_capability_screenshots.py

The agents answer through the local fake OpenAI server of the tests (tests/openai_server.py): a careful
one and a hasty one, so the radar chart has two polygons to compare.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["SCREENLAB_CONFIG_DIR"] = tempfile.mkdtemp()  # never save into the user's settings
os.environ["SCREENLAB_DATA_DIR"] = tempfile.mkdtemp()
DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))
sys.path.insert(0, str(DOCS.parent / "tests"))

from PySide6.QtWidgets import QApplication  # noqa: E402

from desktop_app.settings import Settings  # noqa: E402
from desktop_app.store.models import Episode  # noqa: E402
from desktop_app.store.orm import select  # noqa: E402
from desktop_app.ui.app import application  # noqa: E402
from desktop_app.ui.main_window import MainWindow  # noqa: E402
from desktop_app.ui.theme import apply_theme  # noqa: E402

from test_gui_capability import make_profiled_project  # noqa: E402


def settle(rounds: int = 10) -> None:
    for _ in range(rounds):
        QApplication.processEvents()


def main() -> None:
    app = application()
    apply_theme(app, "light")
    project = make_profiled_project(Path(tempfile.mkdtemp()) / "p")
    window = MainWindow(Settings(annotator="Ada", theme="light", show_suggestions=False))
    window.resize(1600, 940)
    window.show()
    window.open_project(project)
    window.profile_action.trigger()
    view = window.capability_view
    for _ in range(400):
        QApplication.processEvents()
        if view.table.rowCount() == 2:
            break
        view.thread().msleep(10)
    view.resize(1100, 820)
    settle()
    out = DOCS / "capability-profile.png"
    view.grab().save(str(out))
    print(f"wrote {out}")
    view.close()

    # the wallet task, second step: the recorded target is the "Maya Patel" label inside its row
    with window.project.reading() as s:
        episode_id = next(e.id for e in s.exec(select(Episode)) if e.key == "sphinx-4-pocketly")
    window.browser.select_row(window.browser.model.row_of(episode_id))
    settle()
    window.ws.load_step(1)
    window.right_tabs.setCurrentWidget(window.task_panel)
    settle()
    out = DOCS / "recorded-task.png"
    window.grab().save(str(out))
    print(f"wrote {out}")

    window.observe_action.trigger()
    reads = window.observation_view
    reads.mode.setCurrentIndex(reads.mode.findData("list"))
    reads.resize(760, 420)
    settle()
    out = DOCS / "agent-reads.png"
    reads.grab().save(str(out))
    print(f"wrote {out}")
    reads.close()

    window.probes_action.trigger()
    editor = window.probe_editor
    editor.list.setCurrentRow(1)
    settle()
    out = DOCS / "probe-editor.png"
    editor.grab().save(str(out))
    print(f"wrote {out}")
    editor.close()
    window.close()


if __name__ == "__main__":
    main()
