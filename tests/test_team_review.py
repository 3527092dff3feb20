"""The review stage after annotation, as CVAT's validation: a reviewer accepts an annotator's finished work or
returns it with a comment pinned to a box or a point; the returned sample is back in the annotator's queue
("returned", the comment there to read), their next "done" puts it before the reviewer again; each
annotator's acceptance rate counts the decisions. On both back ends, through the API and the CLI."""

from __future__ import annotations

import pytest

from desktop_app import api
from desktop_app.cli.main import main
from desktop_app.formats.transfer import import_path
from desktop_app.store.project import NotAllowed

from conftest import make_image
from team_server import step_of


@pytest.fixture
def labelled(team, tmp_path):
    """Four screens: two given to ana in place, one to ben in place, one to both blind; ana finished her two."""
    for i in range(4):
        make_image(tmp_path / "shots" / f"s{i}.png", size=(300, 200), color=(i * 60, 40, 40))
    lena = team.open("lena")
    import_path(lena, tmp_path / "shots", "images")
    with lena.reading() as s:
        from desktop_app.store.queries import EpisodeFilter, episode_ids

        first, second, bens, double = episode_ids(s, EpisodeFilter())
    api.assign(lena, ["ana"], {"ids": [first, second]})
    api.assign(lena, ["ben"], {"ids": [bens]})
    api.assign(lena, ["ana", "ben"], {"ids": [double]}, overlap=1.0)
    ana = team.open("ana")
    boxes = {}
    for episode in (first, second):
        (boxes[episode],) = api.add_boxes(ana, step_of(ana, episode).id,
                                          [{"x1": 20, "y1": 20, "x2": 120, "y2": 60, "label": "other"}])
        api.set_state(ana, episode, "done")
    return team, {"first": first, "second": second, "bens": bens, "double": double, "boxes": boxes}


def test_a_returned_sample_comes_back_to_its_annotator_with_the_pinned_comment(labelled):
    team, ids = labelled
    rita, ana = team.open("rita"), team.open("ana")
    first, box = ids["first"], ids["boxes"][ids["first"]]
    assert (ids["first"], "ana") in api.awaiting_review(rita)
    returned = api.review_work(rita, first, "return", "The Save button serves the goal: gold, not other",
                               box=box.id)
    assert (returned.annotator, returned.decision, returned.pin.step_index, returned.pin.box_id) == \
        ("ana", "return", 0, box.id)
    assert returned.reviewer == "rita"
    # back in her queue, shown as returned, with the comment on her screen
    assert [e.id for e in api.queue(ana, states=("returned",))] == [first]
    assert api.states(ana, [first], "ana")[first][0] == "returned"
    assert [r.comment for r in api.work_reviews(ana, first)] == ["The Save button serves the goal: gold, not other"]
    # she fixes it (she may again: it is hers, not finished) and marks it done: before the reviewer again
    api.edit_boxes(ana, {box.id: {"label": "gold"}})
    api.set_state(ana, first, "done")
    assert api.states(ana, [first], "ana")[first][0] == "done"
    assert (first, "ana") in api.awaiting_review(rita)
    with rita.reading() as s:  # the reviewer's list in the window: state "to review"
        from desktop_app.store.queries import EpisodeFilter, episode_ids

        assert episode_ids(s, EpisodeFilter(work_states=("to review",))) == [first, ids["second"]]
    api.review_work(rita, first, "accept")
    assert api.states(rita, [first], "ana")[first][0] == "accepted"
    assert (first, "ana") not in api.awaiting_review(rita)
    # the second one accepted at once: ana's rate is 2 of 3 decisions
    api.review_work(rita, ids["second"], "accept")
    rate = api.acceptance(rita)["ana"]
    assert (rate.accepted, rate.returned, rate.rate) == (2, 1, pytest.approx(2 / 3))
    with rita.reading() as s:
        from desktop_app.store.queries import EpisodeFilter, count_episodes

        assert count_episodes(s, EpisodeFilter(assignee="ana", work_states=("accepted",))) == 2
        assert count_episodes(s, EpisodeFilter(work_states=("accepted",))) == 2


def test_what_a_review_needs_and_who_may_give_one(labelled):
    team, ids = labelled
    rita, ben = team.open("rita"), team.open("ben")
    with pytest.raises(ValueError, match="needs a comment"):
        api.review_work(rita, ids["first"], "return")
    with pytest.raises(ValueError, match="is to do, not done"):
        api.review_work(rita, ids["bens"], "accept")  # nothing finished to accept
    with pytest.raises(ValueError, match="labelled by ana, ben: say whose work"):
        api.review_work(rita, ids["double"], "accept")
    with pytest.raises(ValueError, match=r"point \(900, 10\) is outside the 300x200 screen"):
        api.review_work(rita, ids["first"], "return", "here", step=0, point=(900, 10))
    with pytest.raises(ValueError, match="is not on step 0 of this work"):
        api.review_work(rita, ids["first"], "return", "here", box=ids["boxes"][ids["second"]].id, step=0)
    pinned = api.review_work(rita, ids["first"], "return", "this corner is cut off", step=0, point=(10, 190))
    assert (pinned.pin.x, pinned.pin.y) == (10, 190)
    if team.on_server:  # on SQLite one person does everything
        with pytest.raises(NotAllowed, match="a reviewer or the lead reviews work"):
            api.review_work(ben, ids["second"], "accept")
        # what an annotator reads of reviews is their own
        assert api.work_reviews(ben) == []
        with team.connect("ben") as raw:
            assert raw.execute("SELECT count(*) FROM work_review").fetchone() == (0,)
            with pytest.raises(Exception, match="permission denied"):
                raw.execute("INSERT INTO work_review (assignment_id, annotator, reviewer, decision, comment, "
                            "created_at) SELECT id, 'ben', 'rita', 'accept', '', now() FROM assignment")


def test_review_through_the_command_line(labelled, monkeypatch, capsys):
    team, ids = labelled

    def as_(who, *argv):
        for name, value in team.env(who).items():
            monkeypatch.setenv(name, value)
        return main([*argv[0].split(), *team.cli_args(who), *argv[1:]])

    reviewer = "rita"
    box = ids["boxes"][ids["first"]]
    capsys.readouterr()
    assert as_(reviewer, "team reviews", "--awaiting") == 0
    assert "2 finished, not yet accepted" in capsys.readouterr().out
    assert as_(reviewer, "team review", str(ids["first"]), "return", "--comment", "gold, not other",
               "--box", str(box.id)) == 0
    assert f"ana's work returned by {reviewer if team.on_server else 'rita'} (pinned to step 0, box {box.id})" in \
        capsys.readouterr().out
    assert as_(reviewer, "team review", str(ids["second"]), "accept") == 0
    assert as_("ana", "team reviews") == 0
    out = capsys.readouterr().out
    assert "return  by rita" in out and f"[step 0, box {box.id}] gold, not other" in out
    assert as_("ana", "team queue", "--state", "returned") == 0
    assert "1 in ana's queue (returned)" in capsys.readouterr().out
    assert as_(reviewer, "team progress") == 0
    row = next(line.split() for line in capsys.readouterr().out.splitlines() if line.startswith("ana "))
    assert row[-1] == "1/2"
    if team.on_server:
        assert as_("ben", "team review", str(ids["second"]), "accept") == 2
        assert "a reviewer or the lead reviews work" in capsys.readouterr().err
