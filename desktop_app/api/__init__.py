"""ScreenLab's Python API: what the command line and the window do, for scripts and notebooks.

    from desktop_app import api

    project = api.open_project("myproject")                      # or api.init_project("new")
    api.import_data(project, "output_popupbox.jsonl", format="envdistraction", images="web_data/")
    agent = api.agent("gpt4o")                                    # a saved profile, or api.agent(name=..., ...)
    run_id = api.create_run(project, agent, where={"scenarios": ["popup"]})
    api.execute_run(project, run_id)                              # blocks; on_progress=, cancel= for control
    result = api.evaluate(project, [run_id])                      # both rule sets, side by side
    api.evaluate(project, [run_id], text_metric="f1")             # envdistraction text answers by token F1
    print(result["runs"][run_id]["metrics"]["envdistraction"]["overall"]["acc_gold"])
    api.write_report(project, "report/", runs=[run_id])           # CSV / Markdown / LaTeX tables, PNG plots

Every function is a thin layer over the same core function the CLI and the GUI call, so a number
printed by `screenlab eval`, shown in the dashboard and returned here is the same number. Errors the
caller can fix are raised with a message that says what to do (ProfileError for a missing key,
FormatError with the file / line / field for a bad import, ValueError for an unknown run or name).

The names are defined in desktop_app/api/whole.py (and the submodules it gathers) and loaded on first use
(ADR 0057): `import desktop_app.api.projects`, which the window does at start, no longer imports the engine,
the formats, the judges and the studies with it. `api.NAME` and `from desktop_app.api import NAME` work as
before; a name a light submodule exports (open_project, the samples, the boxes) loads only that submodule.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for type checkers and the guide's API reference (griffe reads this, never runs it)
    from desktop_app.api.boxes import *  # noqa: F403
    from desktop_app.api.projects import *  # noqa: F403
    from desktop_app.api.recording import *  # noqa: F403
    from desktop_app.api.results import *  # noqa: F403
    from desktop_app.api.review import *  # noqa: F403
    from desktop_app.api.samples import *  # noqa: F403
    from desktop_app.api.teams import *  # noqa: F403
    from desktop_app.api.trees import *  # noqa: F403
    from desktop_app.api.user_data import *  # noqa: F403
    from desktop_app.api.whole import *  # noqa: F403

# the submodules whose names the window asks for while it starts, lightest first; any other name loads whole.py
_PARTS = ("projects", "samples", "boxes", "review", "trees", "user_data", "teams", "results")


def __getattr__(name: str):
    if name.startswith("__") and name != "__all__":  # __path__, __file__, ...: the import system's questions
        raise AttributeError(name)
    if importlib.util.find_spec(f"{__name__}.{name}") is not None:  # a submodule (`from desktop_app.api import samples`)
        return importlib.import_module(f"{__name__}.{name}")
    if name != "__all__":
        for part in _PARTS:
            module = importlib.import_module(f"{__name__}.{part}")
            if name in module.__all__:
                return getattr(module, name)
    whole = importlib.import_module(f"{__name__}.whole")
    # the package's namespace becomes whole.py's, as it was when the package defined it all itself
    globals().update({key: value for key, value in vars(whole).items()
                      if not key.startswith("__") or key == "__all__"})
    try:
        return globals()[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__getattr__("__all__")))
