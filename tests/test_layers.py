"""The layer rules (tests/layers.py): the real tree obeys them, and the checker catches each kind of
violation on small synthetic packages written to tmp_path (named `app`, with ui/ and cli/ layers, a store/
and the api/ in front of it)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import layers
import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_desktop_app_obeys_the_layer_rules():
    violations = layers.check(ROOT / "desktop_app")
    assert not violations, "\n" + layers.report(violations)


def make_package(tmp_path: Path, files: dict[str, str]) -> Path:
    """Write `files` (paths relative to the package) under tmp_path/app; every directory gets an __init__."""
    root = tmp_path / "app"
    for name, text in {"__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in path.relative_to(root).parents:
            (root / parent / "__init__.py").touch()
        path.write_text(textwrap.dedent(text))
    return root


def found(root: Path, rule: str, **kwargs) -> list[str]:
    return [str(v) for v in layers.check(root, **kwargs) if v.rule == rule]


# --------------------------------------------------------------------------- rule 1: Qt only in ui/


@pytest.mark.parametrize("statement", [
    "import PySide6.QtCore", "from PySide6.QtWidgets import QWidget", "import shiboken6", "import PyQt5",
    "from PyQt6 import QtGui", "import pyqtgraph as pg", "from qtpy.QtCore import Qt",
])
def test_qt_outside_ui_is_caught(tmp_path, statement):
    root = make_package(tmp_path, {"ui/window.py": statement, "store/db.py": f"import os\n{statement}\n"})
    assert found(root, "qt") == [f"app/store/db.py:2: app.store.db imports {statement.split()[1]}"]


def test_lazy_qt_import_is_caught(tmp_path):
    root = make_package(tmp_path, {"plots.py": "def show():\n    import pyqtgraph\n"})
    assert found(root, "qt") == ["app/plots.py:2: app.plots imports pyqtgraph inside a function"]


# --------------------------------------------------------------------------- rule 5: no SQL in the UI


@pytest.mark.parametrize("statement", [
    "from sqlalchemy import select", "import sqlalchemy", "from sqlalchemy.engine import make_url",
    "from sqlmodel import Session", "import sqlmodel as sm",
])
def test_the_database_layer_in_the_ui_is_caught(tmp_path, statement):
    root = make_package(tmp_path, {"ui/browser.py": f"import os\n{statement}\n", "store/queries.py": statement})
    assert found(root, "sql") == [f"app/ui/browser.py:2: app.ui.browser imports {statement.split()[1]}"]


def test_sql_in_the_ui_is_caught_lazily_and_for_types_too(tmp_path):
    root = make_package(tmp_path, {
        "ui/panel.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from sqlmodel import Session\n",
        "ui/eval/runs.py": "def load():\n    from sqlalchemy import func\n",
        "ui/fine.py": "from app.store import queries\nfrom . import sqlalchemy_names\n",  # relative: ours
        "ui/sqlalchemy_names.py": "",
        "store/queries.py": "from sqlalchemy import func\n",
    })
    assert found(root, "sql") == ["app/ui/eval/runs.py:2: app.ui.eval.runs imports sqlalchemy inside a function",
                                  "app/ui/panel.py:3: app.ui.panel imports sqlmodel under TYPE_CHECKING"]


# --------------------------------------------------------------------------- rule 6: the UI reaches the store through the API


def test_the_ui_importing_the_store_is_caught_in_every_form(tmp_path):
    root = make_package(tmp_path, {
        "store/__init__.py": "", "store/queries.py": "", "store/models.py": "", "store/project.py": "",
        "api/samples.py": "from app.store.queries import episode_rows\n",  # the API's own job
        "cli/info.py": "from app.store import queries\n",  # the CLI may (rule 6 is the window's)
        "ui/browser.py": "import os\nfrom app.store.queries import episode_rows\n",
        "ui/grid.py": "import app.store.models as m\n",
        "ui/panel.py": "from app import store\n",  # the package itself
        "ui/eval/runs.py": "def load():\n    from ...store import queries\n",  # relative, inside a function
        "ui/window.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from app.store.project import Project\n",
        "ui/fine.py": "from app.api.samples import episode_rows\nfrom app.ui import store_view\n",
        "ui/store_view.py": "",  # named like the store, but the UI's own module
    })
    assert found(root, "store") == [
        "app/ui/browser.py:2: app.ui.browser imports app.store.queries",
        "app/ui/eval/runs.py:2: app.ui.eval.runs imports app.store.queries inside a function",
        "app/ui/grid.py:1: app.ui.grid imports app.store.models",
        "app/ui/panel.py:1: app.ui.panel imports app.store",
        "app/ui/window.py:3: app.ui.window imports app.store.project under TYPE_CHECKING"]
    assert [v.rule for v in layers.check(root)] == ["store"] * 5  # and nothing else is wrong with the tree


def test_a_ui_reaching_the_store_fails_the_script(tmp_path):
    root = make_package(tmp_path, {"store/edits.py": "", "ui/commands.py": "from app.store import edits\n"})
    result = subprocess.run([sys.executable, str(ROOT / "tests" / "layers.py"), str(root)], capture_output=True,
                            text=True)
    assert result.returncode == 1
    assert "The UI reaching the store around the API (1):" in result.stdout
    assert "app/ui/commands.py:1: app.ui.commands imports app.store.edits" in result.stdout


# --------------------------------------------------------------------------- rule 2: the core imports neither ui nor cli


def test_core_importing_ui_lazily_is_caught(tmp_path):
    root = make_package(tmp_path, {
        "ui/dialog.py": "",
        "crash.py": "import sys\n\n\ndef report():\n    from app.ui.dialog import show\n",
    })
    assert found(root, "layers") == ["app/crash.py:5: app.crash imports app.ui.dialog inside a function"]


def test_core_importing_cli_is_caught(tmp_path):
    root = make_package(tmp_path, {
        "cli/progress.py": "",
        "ocr/run.py": "from ..cli import progress\n",  # relative, and a submodule named in `from`
        "ocr/other.py": "import app.cli\n",
    })
    assert found(root, "layers") == ["app/ocr/other.py:1: app.ocr.other imports app.cli",
                                     "app/ocr/run.py:1: app.ocr.run imports app.cli.progress"]


def test_the_outer_layers_may_import_the_core_and_themselves(tmp_path):
    root = make_package(tmp_path, {
        "store/db.py": "",
        "api/projects.py": "from app.store.db import open_db\n",
        "ui/window.py": "from app.api import projects\nfrom . import widgets\n",
        "ui/widgets.py": "",
        "cli/main.py": "from app.store.db import open_db\nfrom app.cli import progress\n",
        "cli/progress.py": "",
    })
    assert layers.check(root) == []


def test_main_module_is_the_one_exception(tmp_path):
    wiring = "from app.cli.main import main\nfrom app.ui.app import run_gui\n"
    root = make_package(tmp_path, {"cli/main.py": "", "ui/app.py": "", "__main__.py": wiring, "launcher.py": wiring})
    assert found(root, "layers") == ["app/launcher.py:1: app.launcher imports app.cli.main",
                                     "app/launcher.py:2: app.launcher imports app.ui.app"]
    assert "__main__.py" in layers.LAYER_EXCEPTIONS


def test_type_only_import_of_the_ui_still_breaks_the_layers(tmp_path):
    root = make_package(tmp_path, {
        "ui/canvas.py": "",
        "render.py": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from app.ui.canvas import Canvas\n",
    })
    assert found(root, "layers") == ["app/render.py:4: app.render imports app.ui.canvas under TYPE_CHECKING"]


# --------------------------------------------------------------------------- rule 3: no import cycles


def test_two_module_cycle_through_a_lazy_import(tmp_path):
    root = make_package(tmp_path, {
        "agents/runner.py": "import os\n\n\ndef run():\n    from app.navi.runner import navi\n",
        "navi/runner.py": "from app.agents.runner import run\n",
    })
    assert found(root, "cycles") == [
        "app/agents/runner.py:5: app.agents.runner -> app.navi.runner -> app.agents.runner"
        "\n    app/agents/runner.py:5: app.agents.runner -> app.navi.runner inside a function"
        "\n    app/navi/runner.py:1: app.navi.runner -> app.agents.runner"]


def test_three_module_cycle_through_relative_imports(tmp_path):
    root = make_package(tmp_path, {
        "synth/x.py": "from .y import Y\n",
        "synth/y.py": "from . import z\n",
        "synth/z.py": "class Z:\n    pass\n\n\nfrom ..synth.x import X\n",
    })
    assert found(root, "cycles") == [
        "app/synth/x.py:1: app.synth.x -> app.synth.y -> app.synth.z -> app.synth.x"
        "\n    app/synth/x.py:1: app.synth.x -> app.synth.y"
        "\n    app/synth/y.py:1: app.synth.y -> app.synth.z"
        "\n    app/synth/z.py:5: app.synth.z -> app.synth.x"]


def test_from_package_import_submodule_cycle(tmp_path):
    # `from app.store import media` imports the module app/store/media.py, not just app/store/__init__.
    root = make_package(tmp_path, {"store/media.py": "import app.images\n", "images.py": "from app.store import media\n"})
    cycle = found(root, "cycles")
    assert len(cycle) == 1 and cycle[0].startswith("app/images.py:1: app.images -> app.store.media -> app.images")


def test_largest_component_is_named_and_shortest_cycle_shown(tmp_path):
    root = make_package(tmp_path, {"a.py": "import app.b\nimport app.c\n", "b.py": "import app.a\n",
                                   "c.py": "import app.d\n", "d.py": "import app.a\n"})
    (cycle,) = found(root, "cycles")
    assert cycle.startswith("app/a.py:1: app.a -> app.b -> app.a  (4 tangled together: app.a, app.b, app.c, app.d)")


def test_type_checking_imports_make_no_cycle(tmp_path):
    root = make_package(tmp_path, {
        "a.py": "import typing\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from app.b import B\n"
                "if typing.TYPE_CHECKING:\n    import app.b\n",
        "b.py": "from app.a import A\n",
    })
    assert layers.check(root) == []
    # ...but what the else branch imports does run.
    (root / "a.py").write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    pass\nelse:\n"
                               "    import app.b\n")
    assert found(root, "cycles")


def test_package_init_counts_from_outside_only(tmp_path):
    # formats/__init__ imports its submodules, which import each other: no cycle (the __init__ has
    # always started before any submodule).
    files = {"formats/__init__.py": "from app.formats import coco, spec\n",
             "formats/coco.py": "from app.formats.spec import Spec\n", "formats/spec.py": ""}
    assert layers.check(make_package(tmp_path, files)) == []
    # But importing app.formats.spec from outside runs formats/__init__, which imports the importer back.
    files |= {"formats/coco.py": "import app.transfer\n", "transfer.py": "from app.formats.spec import Spec\n"}
    (cycle,) = found(make_package(tmp_path, files), "cycles")
    assert cycle.startswith("app/formats/__init__.py:1: app.formats -> app.formats.coco -> app.transfer -> app.formats")
    assert "app.transfer -> app.formats (its __init__ runs first when importing app.formats.spec)" in cycle


# --------------------------------------------------------------------------- package-level cycles


def test_package_level_cycle(tmp_path):
    root = make_package(tmp_path, {
        "agents/runner.py": "from app.evaluation.scoring import judge\n",
        "agents/actions.py": "",
        "evaluation/scoring.py": "",
        "evaluation/rules.py": "from app.agents.actions import Action\n",
    })
    assert found(root, "cycles") == []
    assert found(root, "package-cycles") == [
        "app/agents/runner.py:1: app.agents -> app.evaluation -> app.agents"
        "\n    app/agents/runner.py:1: app.agents -> app.evaluation (e.g. app.agents.runner imports app.evaluation.scoring)"
        "\n    app/evaluation/rules.py:1: app.evaluation -> app.agents (e.g. app.evaluation.rules imports app.agents.actions)"]
    assert layers.check(root, package_cycles=False) == []


# --------------------------------------------------------------------------- the script


def test_script_exit_codes(tmp_path):
    clean = make_package(tmp_path / "clean", {"store/db.py": "import os\n"})
    dirty = make_package(tmp_path / "dirty", {"store/db.py": "import PySide6\n", "broken.py": "def (:\n"})
    script = [sys.executable, str(ROOT / "tests" / "layers.py")]
    ok = subprocess.run([*script, str(clean)], capture_output=True, text=True)
    bad = subprocess.run([*script, str(dirty)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert bad.returncode == 1
    assert "app/store/db.py:1: app.store.db imports PySide6" in bad.stdout
    assert "app/broken.py:1: cannot parse" in bad.stdout
