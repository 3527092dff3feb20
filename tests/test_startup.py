"""Start-up waits for nothing it does not need (issue 21, item 15); its speed is benchmarks/cold_start.py's.

The real app is launched on a project whose screens OCR never read: by the time it paints the first screen
it has loaded no OCR engine, no OpenAI client, no plotting library and no browser; and the screen's OCR
starts only once the screen has been shown, on a thread of lower priority than the window's.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from desktop_app.priority import BACKGROUND_NICE, background_priority
from desktop_app.settings import Settings
from desktop_app.ui.ocr_assist import SETTLE_MS

ROOT = Path(__file__).resolve().parents[1]


def test_the_first_screen_is_painted_before_any_heavy_library_loads(demo_copy, tmp_path):
    env = {**os.environ, "SCREENLAB_STARTUP_PROBE": "1", "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT),
           "SCREENLAB_CONFIG_DIR": str(tmp_path / "config"), "SCREENLAB_DATA_DIR": str(tmp_path / "data"),
           "SCREENLAB_LOG_DIR": str(tmp_path / "log"), "SCREENLAB_USER": "tester"}
    out = subprocess.run([sys.executable, "-m", "desktop_app", "gui", str(demo_copy)], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    probe = [line for line in out.stdout.splitlines() if line.startswith("startup-probe: painted")]
    assert probe, out.stdout + out.stderr
    assert probe[0].endswith("loaded: none of the heavy ones"), probe[0]
    # before the window's imports, the splash says it is starting (ui/splash.py): a launch on a busy laptop is
    # seen at once, not after the seconds the window takes
    said = [line.split()[1] for line in out.stdout.splitlines() if line.startswith("startup-probe:")]
    assert said == ["feedback", "painted"], out.stdout


# what the first screen does not need, each once imported at start (ADR 0057): the whole API (runs, judges,
# studies), the run engine and its protocols, every import format (numpy's parquet, psutil), the rescoring rules,
# the synthesis modules (jinja2), the trajectory pages, the import dialogs, the OCR worker's multiprocessing and Pillow
NOT_BEFORE_THE_FIRST_SCREEN = (
    "desktop_app.api.whole", "desktop_app.runs.engine", "desktop_app.runs.protocols", "desktop_app.formats",
    "desktop_app.formats.folder_open", "desktop_app.evaluation.rescore", "desktop_app.evaluation.rows",
    "desktop_app.synth.save", "desktop_app.synth.ambiguous", "desktop_app.judging.agreement",
    "desktop_app.ui.judge.trajectory_view", "desktop_app.ui.judge.agreement_view", "desktop_app.ui.transfer_dialogs",
    "jinja2", "psutil", "multiprocessing", "PIL",
)


def test_the_first_screen_is_painted_without_the_modules_only_other_features_need(first_start_demo, tmp_path):
    """In a process of its own (the other tests' imports would hide an eager one): the real launch, the probe
    writing the modules loaded when the first screen is painted. On the project a user's first start opens (with
    runs, judges, a live run): on the bundled dataset alone this passed while the runs panel's tips imported every
    protocol, some 240 modules, at each launch of the first-start demo. Its ticked runs' answers are drawn on the
    first screen, and scoring them needs evaluation.rescore."""
    not_before = set(NOT_BEFORE_THE_FIRST_SCREEN) - {"desktop_app.evaluation.rescore"}
    loaded = tmp_path / "modules.txt"
    env = {**os.environ, "SCREENLAB_STARTUP_PROBE": "1", "SCREENLAB_STARTUP_PROBE_MODULES": str(loaded),
           "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT), "SCREENLAB_CONFIG_DIR": str(tmp_path / "config"),
           "SCREENLAB_DATA_DIR": str(tmp_path / "data"), "SCREENLAB_LOG_DIR": str(tmp_path / "log"),
           "SCREENLAB_USER": "tester"}
    out = subprocess.run([sys.executable, "-m", "desktop_app", "gui", str(first_start_demo)], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert "startup-probe: painted" in out.stdout, out.stdout + out.stderr
    modules = set(loaded.read_text(encoding="utf-8").split())
    # the list is the real one, and the first screen showed the runs' answers
    assert {"desktop_app.ui.main_window", "desktop_app.store.project", "desktop_app.evaluation.rescore"} <= modules
    assert sorted(modules.intersection(not_before)) == []


def test_the_first_screen_is_painted_before_numpy_loads_and_its_captions_follow(tmp_path):
    """numpy's import is 50 ms of a 0.55 s launch (ADR 0071): the first screen is painted without it, the screen's
    ink map (where captions would hide its text) is made once that paint is done, and the captions, held back
    until then, are painted all at once: a launch on a screen with seven captioned boxes, on a 1920x1080 screen
    (at the offscreen default of 800x600 the boxes are too small to be captioned)."""
    from test_gui_canvas_labels import TEXTS, write_page

    from desktop_app.formats.transfer import import_path
    from desktop_app.store.project import Project

    write_page(tmp_path / "source")
    with Project.init(tmp_path / "labels") as project:
        import_path(project, tmp_path / "source", "screenlab")
    screen = tmp_path / "screen.json"
    screen.write_text('{"screens": [{"name": "big", "x": 0, "y": 0, "width": 1920, "height": 1080, '
                      '"logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}', encoding="utf-8")
    loaded = tmp_path / "modules.txt"
    env = {**os.environ, "SCREENLAB_STARTUP_PROBE": "1", "SCREENLAB_STARTUP_PROBE_MODULES": str(loaded),
           "SCREENLAB_STARTUP_PROBE_CAPTIONS": "1", "QT_QPA_PLATFORM": f"offscreen:configfile={screen}",
           "PYTHONPATH": str(ROOT), "SCREENLAB_CONFIG_DIR": str(tmp_path / "config"),
           "SCREENLAB_DATA_DIR": str(tmp_path / "data"), "SCREENLAB_LOG_DIR": str(tmp_path / "log"),
           "SCREENLAB_USER": "tester"}
    out = subprocess.run([sys.executable, "-m", "desktop_app", "gui", str(tmp_path / "labels")], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    said = {line.split()[1]: line.split(maxsplit=2)[2] for line in out.stdout.splitlines()
            if line.startswith("startup-probe:")}
    assert {"painted", "captions"} <= set(said), out.stdout + out.stderr
    modules = set(loaded.read_text(encoding="utf-8").split())
    assert "desktop_app.ui.canvas.scene" in modules and "numpy" not in modules
    # nor these, each imported by the one function that needs it (3-5 ms each at most; ADR 0071's note)
    assert sorted(modules & {"filelock", "statistics", "difflib", "xml.etree.ElementTree"}) == []
    boxed = sum(1 for _place, box in TEXTS.values() if box is not None)
    assert said["captions"].endswith(f"; {boxed} shown"), said["captions"]
    painted, captioned = (float(said[k].split()[0].rstrip(";")) for k in ("painted", "captions"))
    assert painted <= captioned < painted + 10


def test_the_features_that_need_those_modules_still_find_them(demo_copy):
    """The deferred names are there when asked for: the API's whole namespace, the formats' registry."""
    code = ("from desktop_app import api; from desktop_app.api import Plan, open_project; "
            "from desktop_app.formats import FORMATS; from desktop_app.ui.judge import AgreementView; "
            "print(callable(api.evaluate), api.open_project is open_project, 'Plan' in api.__all__, "
            "'coco' in FORMATS, AgreementView.__name__)")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT,
                         capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["True", "True", "True", "True", "AgreementView"]


def test_opening_a_folder_loads_the_images_format_alone_and_every_format_is_registered():
    """Formats load on first use (ADR 0065): the folder importer (File > Open Screenshots Folder…) brings in the
    images format and none of the other 22 with their libraries; the registry names every format module of the
    package under its own SPEC's name."""
    import importlib
    import pkgutil

    from desktop_app import formats
    from desktop_app.formats.spec import FormatSpec

    code = ("import sys; import desktop_app.formats.folder_open; from desktop_app.formats import MODULES; "
            "print(' '.join(n for n, m in MODULES.items() if 'desktop_app.formats.' + m in sys.modules), "
            "'yaml' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT,
                         capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["images", "False"]
    declared = {}
    for info in pkgutil.iter_modules(formats.__path__):
        spec = getattr(importlib.import_module(f"desktop_app.formats.{info.name}"), "SPEC", None)
        if isinstance(spec, FormatSpec):
            declared[spec.name] = info.name
    assert declared == formats.MODULES and len(declared) == 23
    assert [spec.name for spec in formats.FORMATS.values()] == list(formats.MODULES)
    assert "coco" in formats.FORMATS and "nonsense" not in formats.FORMATS and formats.FORMATS.get("nonsense") is None


def test_the_splash_comes_before_the_window_and_the_project_are_imported():
    """The launch imports, before its splash, only what the splash needs: not the window, not the API."""
    code = ("import sys; import desktop_app.ui.app; "
            "print(sorted(m for m in ('desktop_app.ui.main_window', 'desktop_app.api', 'sqlalchemy', "
            "'desktop_app.store.project') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT,
                         capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_a_screens_ocr_starts_after_it_is_shown_not_before(qtbot, demo_copy):
    from desktop_app.ui.main_window import MainWindow

    window = MainWindow(Settings(annotator="ann", show_suggestions=True))
    qtbot.addWidget(window)
    window.show()
    assert window.open_project(str(demo_copy))
    QApplication.processEvents()
    assert window.ocr._task is None  # the screen is there; its OCR waits for the screen to settle
    window.actions_by_id["nav.next"].trigger()
    window.actions_by_id["nav.next"].trigger()
    QApplication.processEvents()
    assert window.ocr._task is None  # paged past: nothing read yet for the screens passed over
    with qtbot.waitSignal(window.ocr.suggestionsReady, timeout=60000):
        pass  # the settled screen is read, and its suggestions arrive
    window.ocr.wait_idle()
    assert window.ocr.outcome is not None and window.ocr.screen.id == window.ws.screen.id


def test_a_screens_ocr_waits_for_its_first_paint(qtbot, demo_copy):
    """Under load the first screen's paint came later than the settle time, and the OCR process started before the
    user saw the screen (test_the_first_screen_is_painted_without_... caught `multiprocessing` loaded at the paint).
    The settle time now counts from the paint: a screen not painted for a second is not read."""
    from desktop_app.ui.main_window import MainWindow

    window = MainWindow(Settings(annotator="ann", show_suggestions=True))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    viewport = window.view.viewport()
    viewport.setUpdatesEnabled(False)  # a machine too busy to paint yet
    assert window.open_project(str(demo_copy))
    qtbot.wait(1000)  # four times the settle time
    assert window.ocr._task is None and window.ocr.outcome is None  # not painted: not read
    viewport.setUpdatesEnabled(True)
    viewport.update()
    with qtbot.waitSignal(window.ocr.suggestionsReady, timeout=120000):
        pass  # painted, settled, read
    window.ocr.wait_idle()
    assert window.ocr.outcome is not None and window.ocr.screen.id == window.ws.screen.id


def test_the_launchs_first_screen_is_read_and_the_collector_back_on_only_once_it_is_painted(qtbot, demo_copy):
    """As run_gui launches (ADR 0060): the collector paused and the OCR held through the window's building; the
    first paint of the screen releases both, and the collector freezes what the launch made."""
    from desktop_app.ui.app import first_painted
    from desktop_app.ui.first_paint import after_first_paint
    from desktop_app.ui.main_window import MainWindow

    window = MainWindow(Settings(annotator="ann", show_suggestions=True))
    qtbot.addWidget(window)
    frozen = gc.get_freeze_count()
    gc.disable()
    try:
        window.ocr.hold()
        assert window.open_project(str(demo_copy))
        after_first_paint(window, lambda: first_painted(window))
        qtbot.wait(3 * SETTLE_MS)  # longer than a screen's settle wait: the window not shown, nothing read yet
        assert window.ocr._task is None and not gc.isenabled()
        with qtbot.waitSignal(window.ocr.suggestionsReady, timeout=60000):
            window.show()  # painted: its OCR starts, and its suggestions arrive
        assert gc.isenabled() and gc.get_freeze_count() > frozen
        window.ocr.wait_idle()
        assert window.ocr.outcome is not None and window.ocr.screen.id == window.ws.screen.id
    finally:
        gc.unfreeze()  # the rest of this test session's objects stay collectable
        gc.enable()


def test_pysides_import_hook_is_the_cheaper_one_and_answers_as_its_own_did():
    """desktop_app/ui/pyside_import_hook.py: in place with this PySide6 (a PySide6 that changed it would make
    every launch 0.1 s slower, said here), and the same answer as PySide6's own for every module loaded."""
    import desktop_app.ui  # noqa: F401  (installs it)

    feature = sys.modules["shibokensupport.feature"]
    cheaper = feature._mod_uses_pyside
    assert getattr(cheaper, "screenlab_cheaper", False)
    modules = [m for m in list(sys.modules.values()) if str(getattr(m, "__file__", "")).endswith(".py")]
    assert len(modules) > 100
    answers = [(m.__name__, cheaper(m)) for m in modules]
    assert answers == [(m.__name__, cheaper.original(m)) for m in modules]
    assert ("desktop_app.ui.main_window", True) in answers or "desktop_app.ui.main_window" not in sys.modules
    assert ("desktop_app.store.models", False) in answers or "desktop_app.store.models" not in sys.modules


def test_pysides_support_modules_are_imported_from_files_with_their_bytecode():
    """packaging/shiboken_files.py (run by `make` for .venv, by the spec for a bundle; ADR 0072): in a fresh
    interpreter, PySide6's signature support modules come from shiboken6's files.dir with bytecode that holds for
    any file times (unchecked hash), not from the source embedded in its library, compiled at each launch."""
    out = subprocess.run([sys.executable, "-c", "import sys, PySide6.QtWidgets\n"
                          "m = sys.modules['shibokensupport.signature.loader']\n"
                          "print(m.__file__); print(m.__cached__)"],
                         capture_output=True, text=True, check=True, timeout=60)
    source, cached = out.stdout.split()
    assert "files.dir" in Path(source).parts, source
    assert int.from_bytes(Path(cached).read_bytes()[4:8], "little") == 0b01  # hash-based, not checked


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread priority is Linux's")
def test_background_work_runs_at_a_lower_priority_than_the_window():
    seen = {}
    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    def work():
        seen["ok"] = background_priority()
        seen["nice"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert seen == {"ok": True, "nice": max(BACKGROUND_NICE, before)}
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before  # the calling thread is untouched


@pytest.mark.parametrize("chosen", [None, "1"])
def test_the_window_has_qts_enum_names_as_attributes_unless_the_user_chose_otherwise(chosen):
    """PySide6 answers `Qt.DisplayRole` by a search at every use (1-5 us) unless asked before its first import for
    the short names as attributes (0.09 us; ui/enum_shortcuts.py): the window's import asks, and
    PYSIDE6_OPTION_PYTHON_ENUM in the environment, PySide6's own switch, still wins."""
    env = {k: v for k, v in os.environ.items() if k != "PYSIDE6_OPTION_PYTHON_ENUM"}
    if chosen:
        env["PYSIDE6_OPTION_PYTHON_ENUM"] = chosen
    code = ("import desktop_app.ui.app; from PySide6.QtCore import Qt; "
            "print('DisplayRole' in vars(Qt), Qt.DisplayRole is Qt.ItemDataRole.DisplayRole)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == (["False", "True"] if chosen else ["True", "True"])
