"""No telemetry (issue 38): a fresh user's OCR run, from the command line and from the window (whose OCR runs in
its own process), leaves no ~/.cache/Microsoft folder: ONNX Runtime's telemetry is off (desktop_app/privacy.py).

Each door runs in a fresh interpreter with a fresh HOME, as a new user's first start: the variable must be set
before the library loads, which only a new process shows."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TELEMETRY = Path(".cache") / "Microsoft"
# ONNX Runtime sends nothing when one of these says it runs on a build server (CI=true in our CI): a user's desktop
# has none, and with them left in, the control below would find no folder and the checks would prove nothing
CI_MARKERS = ("CI", "TF_BUILD", "GITHUB_ACTIONS", "GITLAB_CI", "CIRCLECI", "TRAVIS", "JENKINS_URL",
              "CODEBUILD_BUILD_ID", "BUILDKITE", "TEAMCITY_VERSION", "APPVEYOR", "BITBUCKET_BUILD_NUMBER")


def _fresh_user(home: Path) -> dict[str, str]:
    """A new user's environment: nothing of ours or of the test run's user folders, and the user's own attempt
    to turn telemetry back on ("0" must not win over the README's promise)."""
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SCREENLAB_", "XDG_", "ORT_")) and k not in CI_MARKERS}
    env.update(HOME=str(home), PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen", SCREENLAB_USER="annotator",
               ORT_DISABLE_TELEMETRY="0", XDG_RUNTIME_DIR=str(home))
    return env


def _one_screen_folder(tmp_path: Path) -> Path:
    from desktop_app.paths import demo_dataset_dir

    folder = tmp_path / "shots"
    folder.mkdir()
    first = sorted((demo_dataset_dir() / "images").glob("*.png"))[0]
    shutil.copy(first, folder / "screen.png")
    return folder


def test_onnxruntime_left_alone_makes_the_folder_we_prevent(tmp_path):
    """The control: without ScreenLab, a session of the bundled OCR model makes the telemetry folder here, so the
    tests below would see it if our switch stopped working."""
    import rapidocr

    model = next(Path(rapidocr.__file__).parent.glob("models/*.onnx"))
    env = _fresh_user(tmp_path / "home")
    env.pop("ORT_DISABLE_TELEMETRY")
    code = ("import onnxruntime as ort, sys; "
            "ort.InferenceSession(sys.argv[1], providers=['CPUExecutionProvider'])")
    subprocess.run([sys.executable, "-c", code, str(model)], env=env, check=True, timeout=120, cwd=tmp_path)
    assert (tmp_path / "home" / TELEMETRY).is_dir()


def test_command_line_ocr_of_a_fresh_user_sends_nothing(tmp_path):
    env = _fresh_user(tmp_path / "home")
    project = tmp_path / "project"
    run = [sys.executable, "-m", "desktop_app"]
    subprocess.run([*run, "open-folder", str(_one_screen_folder(tmp_path)), "--project", str(project), "-q"],
                   env=env, check=True, timeout=300, cwd=tmp_path, capture_output=True)
    done = subprocess.run([*run, "ocr", str(project), "-q"], env=env, timeout=300, cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "1 screens, 1 read" in done.stdout, done.stdout  # a real read, not a cached one
    assert not (tmp_path / "home" / TELEMETRY).exists()


@pytest.mark.gui
def test_the_windows_first_start_with_ocr_sends_nothing(tmp_path):
    """`screenlab --smoke`: the first start creates the demo project, opens it and has the OCR process read its
    first screen with the shipped models (exit 0 only when words were read)."""
    env = _fresh_user(tmp_path / "home")
    env["SCREENLAB_SMOKE_SCREENSHOT"] = str(tmp_path / "shot.png")
    done = subprocess.run([sys.executable, "-m", "desktop_app", "--smoke"], env=env, timeout=300, cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "smoke: ok" in done.stdout and "read" in done.stdout
    assert (tmp_path / "home" / ".local" / "share" / "ScreenLab" / "demo-project").is_dir()  # it was a real HOME
    assert not (tmp_path / "home" / TELEMETRY).exists()
