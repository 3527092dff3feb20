"""Files others released (issue 18): every one imports, or is refused with a message that says what to do.

tests/data/real_formats/ is a copy of the team's collection of real files (its README names each source:
SeeClick's Mind2Web release, UI-Venus's examples, ScreenSpot v1 / v2 / Pro, the HF ScreenSpot mirror, two
AndroidControl converters). Each row says what a user gets from one of them: the number of episodes and
steps, and a box checked against the release's own numbers; or the words of the refusal, with the project
left exactly as it was.
"""

from __future__ import annotations

import lzma
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from desktop_app.formats.detect import detect_format
from desktop_app.formats.ingest import ImportOptions
from desktop_app.formats.records import FormatError
from desktop_app.formats.transfer import import_path
from desktop_app.store.models import ActionBox, Episode, Step
from desktop_app.store.orm import select

from conftest import snapshot

REAL = Path(__file__).parent / "data" / "real_formats"
SEECLICK_MIND2WEB = "seeclick_mind2web_data_test_task.json"  # kept as .json.xz (2 MB -> 0.3 MB): real_file() unpacks it


def real_file(name: str, work: Path) -> Path:
    """A file of the collection as its release gives it: a compressed copy unpacked under `work` first."""
    packed = REAL / f"{name}.xz"
    if not packed.is_file():
        return REAL / name
    out = work / name
    out.write_bytes(lzma.decompress(packed.read_bytes()))
    return out


@dataclass
class Case:
    path: str  # under tests/data/real_formats
    fmt: str
    episodes: int = 0  # imported episodes; 0 = refused
    steps: int = 0
    refusal: tuple[str, ...] = ()  # words the refusal must hold (what is wrong, and what to do)
    options: dict = field(default_factory=dict)
    box: tuple[str, str, tuple[float, float, float, float]] | None = None  # (episode key, label, x1 y1 x2 y2)
    detected: str | None = None  # what the Import dialog proposes, when it should know


CASES = [
    # SeeClick's Mind2Web test split: 252 tasks whose screenshots are not in the release
    Case(SEECLICK_MIND2WEB, "mind2web-seeclick",
         refusal=("not found", "--images", "{annotation_id}-{action_uid}.jpg")),
    # its first three tasks, with their screenshots in mind2web_imgs/ beside the file
    Case("mind2web_seeclick/mind2web_data_test_task.json", "mind2web-seeclick", episodes=3, steps=24,
         detected="mind2web-seeclick"),
    # UI-Venus's example phone screenshots, as a folder of images (its JSON names other pictures)
    Case("uivenus", "images", episodes=7, steps=7),
    Case("uivenus/grounding_meta_format.json", "screenspot", refusal=("not found", "--images")),
    Case("uivenus_v2/grounding_meta_format.json", "screenspot", episodes=1, steps=1,
         box=("desktop_0", "gold", (910, 78, 954, 112))),
    Case("screenspot_v1/screenspot_web.json", "screenspot", episodes=2, steps=2, detected="screenspot"),
    # the official v2 layout: the images sit in screenspotv2_image/ beside the file
    Case("screenspot_v2/screenspot_desktop_v2.json", "screenspot", episodes=1, steps=1),
    Case("screenspot_pro", "screenspot", episodes=1, steps=1, detected="screenspot"),  # the release's folder
    Case("screenspot_pro/annotations/android_studio_macos.json", "screenspot", episodes=1, steps=1),
    # the HF mirror's 0-1 boxes: refused as pixels, read when the user says they are normalised
    Case("ss_hf/screenspot_desktop.json", "screenspot", refusal=("normalised", "--bbox-format xyxy-normalised")),
    Case("ss_hf/screenspot_desktop.json", "screenspot", episodes=1, steps=1,
         options={"bbox_format": "xyxy-normalised"}),
    # AndroidControl as a converter writes it: lists for goal and episode_id, actions as JSON strings
    Case("androidcontrol_conv/data.jsonl", "androidcontrol", episodes=1, steps=2, detected="androidcontrol"),
    Case("androidcontrol_conv", "androidcontrol", episodes=1, steps=2),
    # the other converter's file, whose screenshots are not beside it
    Case("ac_native/2.json", "androidcontrol", refusal=("not found", "--images")),
]


def _steps_and_boxes(project):
    with project.reading() as s:
        steps = len(s.exec(select(Step)).all())
        boxes = s.exec(select(ActionBox, Episode.key).join(Step, ActionBox.step_id == Step.id)
                       .join(Episode, Step.episode_id == Episode.id)).all()
    return steps, [(key, b.label, None if b.x1 is None else (b.x1, b.y1, b.x2, b.y2)) for b, key in boxes]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.path}-{c.fmt}{'-' + '-'.join(c.options.values()) if c.options else ''}")
def test_each_real_file_imports_or_is_refused_with_what_to_do(project, case, tmp_path):
    path = real_file(case.path, tmp_path)
    if case.detected:
        assert detect_format(path) == case.detected
    before = snapshot(project)
    options = ImportOptions(**case.options)
    if case.refusal:
        with pytest.raises(FormatError) as caught:
            import_path(project, path, case.fmt, options)
        message = str(caught.value)
        for words in case.refusal:
            assert words in message, message
        assert snapshot(project) == before
        return
    report = import_path(project, path, case.fmt, options)
    steps, boxes = _steps_and_boxes(project)
    assert (report.episodes, steps) == (case.episodes, case.steps)
    if case.box:
        key, label, expected = case.box
        found = [b for k, lab, b in boxes if k == key and lab == label]
        assert found and found[0] == pytest.approx(expected, abs=0.5), boxes


def test_the_command_line_imports_a_real_file_without_being_told_its_format(tmp_path, capsys):
    from desktop_app.cli.main import main

    proj = str(tmp_path / "p")
    assert main(["init", proj]) == 0
    capsys.readouterr()
    assert main(["import", proj, str(REAL / "screenspot_v2" / "screenspot_desktop_v2.json")]) == 0
    out = capsys.readouterr()
    assert "format: screenspot" in out.err and "imported 1 episodes" in out.out
    # a file that is no dataset: refused, asking for --format, nothing imported
    stray = tmp_path / "notes.txt"
    stray.write_text("shopping list\n")
    assert main(["import", proj, str(stray)]) != 0
    assert "--format" in capsys.readouterr().err


def test_the_seeclick_release_imports_with_its_box_left_of_the_picture_left_out(project, tmp_path):
    """Task [35] of SeeClick's Mind2Web test file has a box at x -63 to -8, left of its picture: refused, naming it
    and --clip-boxes; with clip_boxes the action is kept without a box and listed, the rest imported as released."""
    import json

    from conftest import make_image

    tasks = json.loads(real_file(SEECLICK_MIND2WEB, tmp_path).read_text(encoding="utf-8"))[33:36]
    source = tmp_path / "mind2web_data_test_task.json"
    source.write_text(json.dumps(tasks), encoding="utf-8")
    images = tmp_path / "mind2web_imgs"
    for task in tasks:
        for action in task["actions"]:
            if (box := action.get("bbox")) is not None:  # SeeClick's crops are 1280 x 1000
                size = (max(1280, int(box["x"] + box["width"]) + 1), max(1000, int(box["y"] + box["height"]) + 1))
                make_image(images / f"{task['annotation_id']}-{action['action_uid']}.jpg", size=size)
    before = snapshot(project)
    with pytest.raises(FormatError) as caught:
        import_path(project, source, "mind2web-seeclick")
    assert "[2].actions[0].bbox" in str(caught.value) and "--clip-boxes" in str(caught.value)
    assert snapshot(project) == before

    report = import_path(project, source, "mind2web-seeclick", ImportOptions(clip_boxes=True))
    steps = sum(len(t["actions"]) for t in tasks)
    assert (report.episodes, report.steps) == (3, steps) and len(report.boxes_clipped) == 1
    assert "[2].actions[0].bbox" in report.boxes_clipped[0] and "left out" in report.boxes_clipped[0]
    assert "clipped 1 boxes" in report.summary()
    with project.reading() as s:
        placed = s.exec(select(ActionBox).where(ActionBox.x1.is_not(None))).all()
        unplaced = s.exec(select(ActionBox).where(ActionBox.x1.is_(None))).all()
    assert len(placed) == steps - 1 and len(unplaced) == 1
    assert all(0 <= b.x1 < b.x2 and 0 <= b.y1 < b.y2 for b in placed)


def test_the_command_line_clips_boxes_when_asked(tmp_path, capsys):
    import json

    from desktop_app.cli.main import main

    from conftest import make_image

    make_image(tmp_path / "screenspot_imgs" / "mob.png", size=(400, 800))
    path = tmp_path / "screenspot_mobile.json"
    path.write_text(json.dumps([{"img_filename": "mob.png", "bbox": [350, 20, 100, 50], "instruction": "open menu",
                                 "data_type": "icon", "data_source": "android"}]))
    proj = str(tmp_path / "p")
    assert main(["init", proj]) == 0
    assert main(["import", proj, str(path), "--format", "screenspot", "--quiet"]) == 2
    assert "--clip-boxes" in capsys.readouterr().err
    assert main(["import", proj, str(path), "--format", "screenspot", "--quiet", "--clip-boxes"]) == 0
    assert "clipped 1 boxes" in capsys.readouterr().out
