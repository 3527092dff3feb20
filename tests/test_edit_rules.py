"""The rules of box edits, without a window (ADR 0024): what the clipboard may hold, where moved, pasted and
duplicated boxes land, what snapping and a drawn box do, and re-scoring after an edit from anywhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from sqlalchemy import select

from desktop_app import api
from desktop_app.ocr.base import OcrOutcome, Word, quad_from_xyxy
from desktop_app.ocr.screen_reading import (
    ScreenReading,
    accepted_box,
    drawn_box,
    missing_texts,
    siblings,
    snapped,
)
from desktop_app.ocr.suggested_box import Piece
from desktop_app.opening import keep_verdicts_current
from desktop_app.store import edits
from desktop_app.store import models as m
from desktop_app.store.box_clipboard import CLIPBOARD_KEY, boxes_from_clipboard, clipboard_text, copied
from desktop_app.store.box_placement import DUPLICATE_OFFSET, duplicated, nudged, pasted

from conftest import make_image

GOOD = {"label": "gold", "x1": 1, "y1": 2, "x2": 5, "y2": 6}


def box(box_id, x1, y1, x2, y2, **fields):
    return SimpleNamespace(id=box_id, x1=x1, y1=y1, x2=x2, y2=y2, **fields)


# -- the clipboard ---------------------------------------------------------------------------------------
def test_copied_boxes_come_back_from_the_clipboard_with_the_fields_a_copy_keeps():
    source = box(7, 10, 20, 30, 40, label="gold", action_type="type", element_text="Search", type_text="shoes",
                 meta={"attributes": {"colour": "red"}}, step_id=3, author="ann", source="ocr")
    values = copied([source])
    assert values == [{"x1": 10, "y1": 20, "x2": 30, "y2": 40, "label": "gold", "action_type": "type",
                       "element_text": "Search", "type_text": "shoes", "meta": {"attributes": {"colour": "red"}}}]
    assert boxes_from_clipboard(clipboard_text(values)) == values
    text_only = {"x1": None, "y1": None, "x2": None, "y2": None, "label": "other"}
    assert boxes_from_clipboard(json.dumps({CLIPBOARD_KEY: [text_only]}))[0]["x1"] is None
    # defaults for what a hand-written copy leaves out; any label name (the store checks it)
    assert boxes_from_clipboard(json.dumps({CLIPBOARD_KEY: [dict(GOOD, label="button")]}))[0] == {
        "x1": 1, "y1": 2, "x2": 5, "y2": 6, "label": "button", "action_type": "click", "element_text": "",
        "type_text": "", "meta": {}}


NOT_BOXES = [
    "", "hello", "[1, 2]", "null", "{", "{" * 100_000, "[" * 100_000, '{"other/boxes": []}',
    '{"screenlab/boxes": {"x1": 1}}', '{"screenlab/boxes": [1]}', '{"screenlab/boxes": [null]}',
    "{" + " " * 10_000_001 + "}",  # too long to be a copy of boxes: not even parsed
    '{"screenlab/boxes": [{"x1": 1' + "0" * 5000 + ', "y1": 1, "x2": 2, "y2": 2, "label": "gold"}]}',
]


@pytest.mark.parametrize("text", NOT_BOXES, ids=range(len(NOT_BOXES)))
def test_anything_else_on_the_clipboard_is_not_boxes(text):
    assert boxes_from_clipboard(text) is None


@pytest.mark.parametrize("bad", [
    {"x1": "zero"}, {"x1": 9}, {"y1": 7}, {"x1": None}, {"x1": True}, {"y2": float("nan")},
    {"x2": float("inf")}, {"x1": 10 ** 400}, {"label": ""}, {"label": 5}, {"label": None},
    {"action_type": "teleport"}, {"action_type": ["click"]}, {"element_text": 5}, {"type_text": None},
    {"meta": "x"}, {"meta": []},
])
def test_one_bad_box_refuses_the_whole_paste(bad):
    good_and_bad = [GOOD, dict(GOOD, **bad)]
    assert boxes_from_clipboard(json.dumps({CLIPBOARD_KEY: good_and_bad})) is None
    assert boxes_from_clipboard(json.dumps({CLIPBOARD_KEY: [GOOD]})) is not None


def test_boxes_from_clipboard_never_raises_on_non_text():
    assert boxes_from_clipboard(None) is None  # type: ignore[arg-type]


# -- where boxes land ---------------------------------------------------------------------------------------
def test_nudge_stops_at_every_edge_and_keeps_the_size():
    boxes = [box(1, 0, 10, 20, 30), box(2, 180, 80, 200, 100), box(3, 50, 50, 60, 60), box(4, None, None, None, None)]
    assert nudged(boxes, -5, 3, 200, 100) == {
        1: {"x1": 0, "y1": 13, "x2": 20, "y2": 33},  # already at the left edge: moves only down
        2: {"x1": 175, "y1": 80, "x2": 195, "y2": 100},  # at the bottom: moves only left
        3: {"x1": 45, "y1": 53, "x2": 55, "y2": 63}}  # the text-only box has nowhere to go
    assert nudged(boxes[1:2], 10, 10, 200, 100) == {2: {"x1": 180, "y1": 80, "x2": 200, "y2": 100}}
    assert nudged(boxes[2:3], -100, -100, 200, 100) == {3: {"x1": 0, "y1": 0, "x2": 10, "y2": 10}}


def test_a_pasted_box_stays_inside_a_smaller_screen_and_keeps_its_size():
    wide = {"x1": 1000, "y1": 20, "x2": 1200, "y2": 60, "label": "gold", "source": "ocr"}
    assert pasted(wide, 390, 844) == {**wide, "x1": 190, "x2": 390, "source": "manual"}
    assert pasted({**wide, "x1": -50, "x2": 150, "y1": -5, "y2": 35}, 390, 844) == \
        {**wide, "x1": 0, "y1": 0, "x2": 200, "y2": 40, "source": "manual"}
    # bigger than the image: put at the corner and cut to it
    assert pasted({**wide, "x1": 0, "x2": 500, "y1": 0, "y2": 900}, 390, 844) == \
        {**wide, "x1": 0, "y1": 0, "x2": 390, "y2": 844, "source": "manual"}
    text_only = {"x1": None, "y1": None, "x2": None, "y2": None, "label": "other"}
    assert pasted(text_only, 390, 844) == {**text_only, "source": "manual"}


def test_a_duplicate_sits_beside_its_original_unless_the_edge_is_near():
    values = {"x1": 10, "y1": 10, "x2": 50, "y2": 30, "label": "gold"}
    assert duplicated(values, 200, 100) == {**values, "x1": 10 + DUPLICATE_OFFSET, "y1": 10 + DUPLICATE_OFFSET,
                                            "x2": 50 + DUPLICATE_OFFSET, "y2": 30 + DUPLICATE_OFFSET,
                                            "source": "manual"}
    corner = {"x1": 160, "y1": 80, "x2": 200, "y2": 100, "label": "gold"}
    assert duplicated(corner, 200, 100) == {**corner, "source": "manual"}


# -- OCR's part: auto text, snapping, accepted suggestions ----------------------------------------------------
def _words(*found):
    return OcrOutcome([Word(quad_from_xyxy(xyxy), text, 0.9) for text, xyxy in found], [], "test", "en", "{}",
                      True, 1.0)


def _button_image():
    image = np.full((100, 200, 3), 255, np.uint8)
    image[30:61, 40:121] = 60  # a dark outline 40..120 x 30..60
    image[34:57, 44:117] = 230
    return image


def test_a_drawn_box_gets_the_words_inside_it_and_is_a_manual_click():
    reading = ScreenReading(_words(("Sign", (50, 40, 70, 50)), ("in", (75, 40, 85, 50)), ("Help", (150, 5, 180, 15))))
    assert drawn_box((45, 35, 100, 55), "gold", reading) == {
        "x1": 45, "y1": 35, "x2": 100, "y2": 55, "label": "gold", "source": "manual", "action_type": "click",
        "element_text": "Sign in"}
    assert drawn_box((45, 35, 100, 55), "other", ScreenReading())["element_text"] == ""  # no OCR yet


def test_snap_on_draw_fits_the_drawn_box_to_the_element_under_it():
    reading = ScreenReading(None, _button_image)
    rough = (35, 26, 126, 66)
    assert drawn_box(rough, "gold", reading)["x1"] == 35  # not asked for: as drawn
    fitted = drawn_box(rough, "gold", reading, snap_on_draw=True)
    assert (fitted["x1"], fitted["y1"], fitted["x2"], fitted["y2"]) == (40.0, 30.0, 121.0, 61.0)
    assert ScreenReading().snap(rough) == (rough, "none")  # no pixels: nothing to snap to


def test_snapping_selected_boxes_snaps_each_against_its_siblings():
    seen = []

    class Reading:
        def snap(self, corners, others):
            seen.append((corners, list(others)))
            return tuple(v + 1 for v in corners), "element"

        def text_in(self, corners):
            return ""

    boxes = {1: box(1, 0, 0, 10, 10, element_text=""), 2: box(2, 20, 20, 30, 30, element_text=""),
             3: box(3, None, None, None, None, element_text="")}
    after, rules = snapped(boxes, [2, 3, 99], Reading())
    assert after == {2: {"x1": 21.0, "y1": 21.0, "x2": 31.0, "y2": 31.0}} and rules == ["element"]
    assert seen == [((20, 20, 30, 30), [(0, 0, 10, 10)])]  # its siblings, not itself nor the text-only box
    assert siblings(boxes) == [(0, 0, 10, 10), (20, 20, 30, 30)]
    assert snapped(boxes, [], Reading()) == ({}, [])


def test_snapping_a_box_with_no_text_gives_it_the_words_inside():
    """Issue 33 item 2: S on a box drawn before OCR had read the screen left it "(no text)"."""
    reading = ScreenReading(_words(("Sign", (50, 40, 70, 50)), ("in", (75, 40, 85, 50))), _button_image)
    boxes = {1: box(1, 35, 26, 126, 66, element_text=""), 2: box(2, 35, 26, 126, 66, element_text="Log in")}
    after, _ = snapped(boxes, [1, 2], reading)
    assert after[1] == {"x1": 40.0, "y1": 30.0, "x2": 121.0, "y2": 61.0, "element_text": "Sign in"}
    assert "element_text" not in after[2]  # text the annotator gave (or an earlier read) stays


def test_boxes_drawn_before_ocr_get_the_words_ocr_then_finds_inside_them():
    reading = ScreenReading(_words(("Sign", (50, 40, 70, 50)), ("in", (75, 40, 85, 50)), ("Help", (150, 5, 180, 15))))
    boxes = {1: box(1, 45, 35, 100, 55, element_text=""), 2: box(2, 140, 0, 190, 20, element_text="Support"),
             3: box(3, 0, 80, 30, 99, element_text=""), 4: box(4, None, None, None, None, element_text="")}
    # the same words a box drawn now would get; text already there, a box with no words and a text-only
    # box are left alone
    assert missing_texts(boxes, [1, 2, 3, 4, 99], reading) == {1: {"element_text": "Sign in"}}
    assert missing_texts(boxes, [1], reading)[1]["element_text"] == drawn_box((45, 35, 100, 55), "gold",
                                                                            reading)["element_text"]
    assert missing_texts(boxes, [1], ScreenReading()) == {}  # OCR has not read the screen yet


def test_accepted_suggestions_make_one_box_with_the_next_label():
    reading = ScreenReading(_words(("Sign", (50, 40, 70, 50)), ("in", (75, 40, 85, 50))))
    pieces = [Piece((50, 40, 70, 50), "Sign", "word"), Piece((75, 40, 85, 50), "in", "word")]
    values = accepted_box(pieces, "distracted", reading)
    assert values["label"] == "distracted" and values["element_text"] == "Sign in"
    assert (values["x1"], values["x2"], values["source"]) == (50.0, 85.0, "ocr")
    assert accepted_box([], "gold", reading) is None


BUBBLE_TEXT = "Thanks for following FlashDeals! We send the best local offers every day."


def _bubble_reading():
    words = [("Thanks", (20, 20, 70, 34)), ("for", (74, 20, 96, 34)), ("following", (100, 20, 170, 34)),
             ("FlashDeals!", (174, 20, 260, 34)), ("We", (264, 20, 290, 34)), ("send", (294, 20, 330, 34)),
             ("the", (20, 40, 44, 54)), ("best", (48, 40, 80, 54)), ("local", (84, 40, 120, 54)),
             ("offers", (124, 40, 170, 54)), ("every", (174, 40, 214, 54)), ("day.", (218, 40, 250, 54))]
    return ScreenReading(_words(*words))


def test_a_word_picked_with_the_element_around_it_is_not_repeated():
    """Issue 33 item 2: Shift+click a word, then its chat bubble: "Thanks Thanks for following..." was made."""
    reading = _bubble_reading()
    word = Piece((20, 20, 70, 34), "Thanks", "word")
    bubble = Piece((10, 12, 300, 62), BUBBLE_TEXT, "card")
    for pieces in ([word, bubble], [bubble, word]):  # the order they were picked in does not matter
        values = accepted_box(pieces, "gold", reading)
        assert values["element_text"] == BUBBLE_TEXT
        assert (values["x1"], values["y1"], values["x2"], values["y2"]) == (10.0, 12.0, 300.0, 62.0)
    # several of its words picked with it: still each word once
    values = accepted_box([Piece((174, 40, 214, 54), "every", "word"), bubble,
                           Piece((218, 40, 250, 54), "day.", "word")], "gold", reading)
    assert values["element_text"] == BUBBLE_TEXT


def test_what_is_inside_a_picked_element_still_counts_when_the_element_does_not_say_it():
    reading = _bubble_reading()
    # an outlined icon with no text of its own around a word: the word is the text
    icon = Piece((15, 15, 75, 39), "", "icon")
    assert accepted_box([icon, Piece((20, 20, 70, 34), "Thanks", "word")], "gold", reading)["element_text"] == \
        "Thanks"
    # a model's answer around a word it does not name: both kept, each once
    answer = Piece((15, 15, 100, 39), "Reply", "model")
    text = accepted_box([answer, Piece((20, 20, 70, 34), "Thanks", "word")], "gold", reading)["element_text"]
    assert sorted(text.split()) == ["Reply", "Thanks"]
    # two separate elements with the same word: each says it (no word is dropped for being said elsewhere)
    left, right = Piece((0, 0, 50, 20), "Save", "button"), Piece((60, 0, 110, 20), "Save", "button")
    assert accepted_box([left, right], "gold", reading)["element_text"] == "Save Save"


# -- re-scoring after an edit made anywhere ---------------------------------------------------------------------
@pytest.fixture
def scored(any_project, tmp_path):
    """A screen whose gold box holds the centre, and the centre baseline's stored answer on it (gold)."""
    from desktop_app.agents.profiles import BASELINES
    from desktop_app.formats.transfer import import_path
    from desktop_app.runs.engine import create_run, execute

    make_image(tmp_path / "data" / "s.png", size=(200, 100))
    line = {"id": "one", "goal": "Sign in", "scenario": "popup", "steps": [{"image": "s.png", "actions": [
        {"label": "gold", "box": [80, 30, 120, 70], "element_text": "Sign in"}]}]}
    (tmp_path / "data" / "episodes.jsonl").write_text(json.dumps(line) + "\n")
    import_path(any_project, tmp_path / "data", "screenlab")
    execute(any_project, create_run(any_project, BASELINES["center"]))  # clicks (100, 50)
    assert verdict(any_project) == "gold"
    # what api.open_project does on opening (the doors themselves: test_every_door_rescores_...)
    return keep_verdicts_current(any_project)


def verdict(project):
    with project.reading() as s:
        return s.execute(select(m.Prediction.verdict)).scalar_one()


def the_box(project):
    with project.reading() as s:
        return s.execute(select(m.ActionBox)).scalars().one()


def test_a_box_edited_through_the_api_rescores_the_stored_answer(scored):
    box_ = the_box(scored)
    api.edit_boxes(scored, {box_.id: {"label": "distracted"}})
    assert verdict(scored) == "distracted"
    api.edit_boxes(scored, {box_.id: {"x1": 150, "x2": 190}})  # the click now misses it
    assert verdict(scored) == "invalid"
    api.delete_boxes(scored, [box_.id])
    assert verdict(scored) == "invalid"
    step_id = box_.step_id
    api.add_boxes(scored, step_id, [{"x1": 90, "y1": 40, "x2": 110, "y2": 60, "label": "gold"}])
    assert verdict(scored) == "gold"


def test_an_undone_delete_and_a_scenario_change_rescore_too(scored):
    box_ = the_box(scored)
    saved = edits.delete_boxes(scored, [box_.id])
    assert verdict(scored) == "invalid"
    edits.restore_boxes(scored, saved)
    assert verdict(scored) == "gold"
    calls = []
    scored.follow_edits(lambda project, steps: calls.append(steps))
    episode_id = scored_episode(scored)
    edits.update_episode(scored, episode_id, {"goal": "Log in"})
    assert calls == []  # the goal is not what judging reads
    edits.update_episode(scored, episode_id, {"scenario": "search"})
    assert calls == [[box_.step_id]]


def scored_episode(project):
    with project.reading() as s:
        return s.execute(select(m.Episode.id)).scalar_one()


def test_listeners_run_once_after_commit_never_after_a_rollback_and_never_fail_the_edit(scored):
    box_ = the_box(scored)
    calls = []

    def failing(project, steps):
        calls.append(steps)
        raise RuntimeError("listener broke")

    scored.follow_edits(failing)
    scored.follow_edits(failing)  # followed once
    edits.update_boxes(scored, [(box_.id, {"label": "distracted"})])  # saved, and re-scored before `failing`
    assert calls == [[box_.step_id]] and verdict(scored) == "distracted"
    with pytest.raises(ValueError), scored.transaction() as s:  # a multi-write edit that rolls back
        edits.add_boxes_in(s, box_.step_id, [{"x1": 1, "y1": 1, "x2": 5, "y2": 5, "label": "gold"}], "ann")
        raise ValueError("changed my mind")
    assert calls == [[box_.step_id]]
    assert len(edits.boxes_of_step(scored, box_.step_id)) == 1


SCRIPT = """
import sys
from desktop_app import api
from desktop_app.store import edits
from desktop_app.store.project import Project

how, location, box_id = sys.argv[1], sys.argv[2], int(sys.argv[3])
opened = api.open_project(location) if how == "api" else Project.open(location)
with opened as project:
    edits.update_boxes(project, [(box_id, {"label": "distracted"})])
"""


def _folder_scored(tmp_path) -> int:
    """A folder project like `scored`'s, made through the API; returns its gold box's id."""
    from desktop_app.agents.profiles import BASELINES
    from desktop_app.formats.transfer import import_path
    from desktop_app.runs.engine import create_run, execute

    make_image(tmp_path / "data" / "s.png", size=(200, 100))
    line = {"id": "one", "goal": "Sign in", "scenario": "popup", "steps": [{"image": "s.png", "actions": [
        {"label": "gold", "box": [80, 30, 120, 70], "element_text": "Sign in"}]}]}
    (tmp_path / "data" / "episodes.jsonl").write_text(json.dumps(line) + "\n")
    with api.init_project(tmp_path / "p") as project:
        import_path(project, tmp_path / "data", "screenlab")
        execute(project, create_run(project, BASELINES["center"]))
        return the_box(project).id


def _in_own_process(command) -> None:
    done = subprocess.run(command, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("door", ["script", "cli"])
def test_every_door_rescores_after_an_edit_in_its_own_process(tmp_path, door):
    """A script that opens through the API and edits through the store alone (nothing on the edit's path
    imports evaluation), and the command line, each in a fresh process: the stored answer is judged again."""
    box_id = _folder_scored(tmp_path)
    _in_own_process([sys.executable, "-c", SCRIPT, "api", str(tmp_path / "p"), str(box_id)] if door == "script"
                    else [sys.executable, "-m", "desktop_app", "boxes", "edit", str(tmp_path / "p"), str(box_id),
                          "--set", "label=distracted"])
    with api.open_project(tmp_path / "p") as project:
        assert verdict(project) == "distracted"


def test_the_stores_bare_opening_does_not_rescore(tmp_path):
    """Project.open is the store's own opening (its tests, read-only tools): what follows an edit is the
    opener's to say, and it said nothing; so the verdict is still the old one (the test above can fail)."""
    box_id = _folder_scored(tmp_path)
    _in_own_process([sys.executable, "-c", SCRIPT, "bare", str(tmp_path / "p"), str(box_id)])
    with api.open_project(tmp_path / "p") as project:
        assert verdict(project) == "gold"
