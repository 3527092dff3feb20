"""The bundled demo project, copied into the user's data folder on first run."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from desktop_app.paths import (
    demo_dataset_dir,
    judge_demo_dataset_dir,
    live_demo_dataset_dir,
    navi_demo_dataset_dir,
    sphinx_demo_dataset_dir,
    user_data_dir,
)
from desktop_app.store.project import Project, is_project_folder

DEMO_FOLDER = "demo-project"


def ensure_demo_project(data_dir: Path | None = None) -> Path:
    """Path of the user's demo project, creating it from datasets/demo, navi_demo, judge_demo, sphinx_demo and
    live_demo if absent (judge_demo's scripted judges become judge runs, so the agreement view has figures at once;
    sphinx_demo brings recorded app screens with their accessibility trees; live_demo two tasks recorded in a
    browser and a scripted agent's live run on them).

    Built in a scratch folder and renamed into place, so an interrupted first
    run never leaves a half-imported demo behind.
    """
    root = data_dir or user_data_dir()
    target = root / DEMO_FOLDER
    if is_project_folder(target):
        return target
    # the importers only when the demo is built (the first run): every later start opens the project at once,
    # without the formats' libraries (numpy, psutil, ...) it never uses (ADR 0057)
    from desktop_app.formats.transfer import import_path
    from desktop_app.runs.imported_verdicts import import_verdicts
    from desktop_app.runs.run_transfer import import_run

    root.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".demo-", dir=root))
    try:
        with Project.init(scratch / DEMO_FOLDER) as project:
            import_path(project, demo_dataset_dir(), "screenlab")
            import_path(project, navi_demo_dataset_dir(), "screenlab")
            judged = judge_demo_dataset_dir()
            import_path(project, judged, "unified-trajectory")
            for verdicts in sorted((judged / "verdicts").glob("*.jsonl")):
                import_verdicts(project, verdicts)
            import_path(project, sphinx_demo_dataset_dir(), "sphinx")
            # recorded in a browser and run live once, at development time (datasets/build_live_demo.py):
            # the first start needs no browser to show them
            live = live_demo_dataset_dir()
            import_path(project, live / "tasks", "screenlab")
            import_run(project, live / "run")
        if target.exists():
            shutil.rmtree(target)
        (scratch / DEMO_FOLDER).rename(target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target
