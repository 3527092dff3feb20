"""Verifying generated samples from the command line and the API, with the queue's rules: the store says
accepted or edited, ticks on the checklist are not an edit, an ambiguous task with problems needs --anyway,
and a verdict can be put back."""

from __future__ import annotations

from desktop_app import api
from desktop_app.cli.main import main
from desktop_app.navi.model import navi_of
from desktop_app.navi.verification import record_checklist, removed_details, unasked_details
from desktop_app.store import edits
from desktop_app.store import models as m
from desktop_app.store.orm import select
from desktop_app.store.review import current_verdict, restore_review

from conftest import ambiguous_tasks_project


def _status(project, key):
    with project.reading() as s:
        return s.exec(select(m.Episode.review_status).where(m.Episode.key == key)).one()


def _id(project, key):
    with project.reading() as s:
        return s.exec(select(m.Episode.id).where(m.Episode.key == key)).one()


def test_removed_details_and_the_questions_that_ask_for_them():
    assert removed_details("Book a flight to Berlin on 12 May", "Book a flight") == ["to Berlin on 12 May"]
    assert removed_details("Book a flight to Berlin for two on 12 May", "Book a flight for two") == \
        ["to Berlin", "on 12 May"]
    assert removed_details("Order the shoes", "Order the shoes") == []


def test_an_ambiguous_task_with_problems_needs_anyway_on_the_command_line(tmp_path, capsys):
    folder = ambiguous_tasks_project(tmp_path)
    assert main(["verify", str(folder), "shoes-1-ambiguous", "accept"]) == 2
    err = capsys.readouterr().err
    assert "the checklist is empty" in err and "'on 12 May' was removed but no question asks for it" in err
    assert "accept anyway" in err
    with api.open_project(folder) as project:
        assert _status(project, "shoes-1-ambiguous") == "pending"
    assert main(["verify", str(folder), "shoes-1-ambiguous", "accept", "--anyway"]) == 0
    assert "shoes-1-ambiguous: accepted" in capsys.readouterr().out
    assert main(["verify", str(folder), "shoes-0-ambiguous", "reject"]) == 2
    assert "needs a reason" in capsys.readouterr().err
    assert main(["verify", str(folder), "no-such-sample", "reject", "--reason", "other"]) == 2
    assert "no sample 'no-such-sample'" in capsys.readouterr().err


def test_ticks_are_not_an_edit_and_a_changed_task_is_recorded_as_edited(tmp_path):
    folder = ambiguous_tasks_project(tmp_path)
    with api.open_project(folder) as project:
        first, second = _id(project, "shoes-0-ambiguous"), _id(project, "shoes-1-ambiguous")
        # the first: every box ticked, nothing else touched
        record_checklist(project, first, {"only_target_removed": True, "nothing_else_lost": True}, "ann")
        assert api.sample_problems(project, first) == []
        assert api.verify_sample(project, "shoes-0-ambiguous", "accept", reviewer="ann") == "accepted"
        # the second: its question rewritten (an edit of the sample), then the checklist, then accepted
        with project.reading() as s:
            episode = s.get(m.Episode, second)
        info = navi_of(episode)
        info.qa_pairs[0].question = "Which size and which day?"
        info.qa_pairs[0].answer = "Size 42, on 12 May."
        edits.update_episode(project, second, {"meta": {**episode.meta, "navi": info.to_json()}}, "ann")
        assert unasked_details(info) == []  # the answer now brings the date back
        record_checklist(project, second, {"style_kept": True}, "ann")
        assert api.verify_sample(project, second, "accept", reviewer="ann") == "edited"
        # and a verdict is put back as it was (what undo does in the window)
        before = current_verdict(project, first)
        api.verify_sample(project, first, "reject", "boxes wrong or missing", reviewer="bob")
        assert _status(project, "shoes-0-ambiguous") == "rejected"
        restore_review(project, first, before)
        assert _status(project, "shoes-0-ambiguous") == "accepted"
        assert current_verdict(project, first).reviewer == "ann"
