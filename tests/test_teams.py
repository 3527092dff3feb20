"""A team's day on one shared project, on SQLite and on a real PostgreSQL server: a lead assigns samples
with an overlap, two annotators label (blind on the overlap), mark done or skip, the lead measures
agreement and adjudicates; a stale write is refused instead of overwriting a colleague's edit."""

import pytest
from sqlalchemy import select

from desktop_app.formats.transfer import import_path
from desktop_app.store import audit, edits
from desktop_app.store.models import ActionBox, Assignment, Episode, Step
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter, count_episodes, list_episodes, project_counts
from desktop_app.store.work_states import states_of
from desktop_app.teams import adjudication, assignment, progress

from conftest import make_image


@pytest.fixture
def team_project(any_project, tmp_path):
    """Ten unlabelled screens."""
    for i in range(10):
        make_image(tmp_path / "shots" / f"s{i:02}.png", size=(400, 300), color=(i * 20, 40, 90))
    import_path(any_project, tmp_path / "shots", "images")
    return any_project


def _queue(project, who, *states):
    with project.reading() as s:
        return list_episodes(s, EpisodeFilter(assignee=who, work_states=states), 0, 100)


def _step(project, episode_id):
    with project.reading() as s:
        return s.execute(select(Step).where(Step.episode_id == episode_id)).scalars().first()


def test_assign_with_overlap_gives_each_annotator_their_queue_and_blind_copies(team_project):
    project = team_project
    report = assignment.assign(project, EpisodeFilter(), ["ann", "bob"], overlap=0.2, lead="lead", seed=3)
    assert (report.samples, report.double, report.already_assigned) == (10, 2, 0)
    assert report.per_annotator == {"ann": 6, "bob": 6}  # 5 each in turn, plus both on the 2 doubled
    ann, bob = _queue(project, "ann"), _queue(project, "bob")
    assert len(ann) == len(bob) == 6
    ann_copies = [e for e in ann if e.kind == "copy"]
    bob_copies = [e for e in bob if e.kind == "copy"]
    assert len(ann_copies) == len(bob_copies) == 2
    # the same two samples, each person on their own copy; nobody else's copy in a queue
    assert {e.meta["copy_of"] for e in ann_copies} == {e.meta["copy_of"] for e in bob_copies}
    assert not {e.id for e in ann} & {e.id for e in bob}
    # copies are not samples: the project's list, runs and exports still see ten
    with project.reading() as s:
        assert count_episodes(s, EpisodeFilter()) == 10
    # assigning again gives out nothing twice
    again = assignment.assign(project, EpisodeFilter(), ["cat"], lead="lead")
    assert (again.samples, again.already_assigned) == (0, 10)


def test_states_done_and_skipped_per_annotator_with_progress_and_time(team_project):
    project = team_project
    assignment.assign(project, EpisodeFilter(), ["ann", "bob"], lead="lead")
    first, second, third = _queue(project, "ann")[:3]
    edits.create_boxes(project, _step(project, first.id).id,
                       [{"x1": 10, "y1": 10, "x2": 60, "y2": 40, "label": "gold"}], actor="ann")
    assignment.note_work(project, first.id, 42.0, edited=True, annotator="ann")
    assignment.set_state(project, first.id, "done", annotator="ann")
    with pytest.raises(ValueError, match="reason"):
        assignment.set_state(project, second.id, "skipped", annotator="ann")
    assignment.set_state(project, second.id, "skipped", annotator="ann", reason="screen is blank")
    assignment.note_work(project, third.id, 5000.0, edited=True, annotator="ann")  # lunch: capped
    assert [e.id for e in _queue(project, "ann", "done")] == [first.id]
    assert [e.id for e in _queue(project, "ann", "skipped")] == [second.id]
    assert [e.id for e in _queue(project, "ann", "in progress")] == [third.id]
    assert len(_queue(project, "ann", "to do")) == len(_queue(project, "ann", "unlabelled")) == 2
    with project.reading() as s:
        shown = states_of(s, [first.id, second.id, third.id], annotator="ann")
        overall = states_of(s, [first.id], annotator=None)
        # the same states through the overall filter the list uses when no annotator is chosen
        assert [e.id for e in list_episodes(s, EpisodeFilter(work_states=("done",)))] == [first.id]
        # everything was given out: nothing is unlabelled, the 7 nobody started are to do
        assert count_episodes(s, EpisodeFilter(work_states=("unlabelled",))) == 0
        assert count_episodes(s, EpisodeFilter(work_states=("to do",))) == 7
    assert [shown[i][0] for i in (first.id, second.id, third.id)] == ["done", "skipped", "in progress"]
    assert overall[first.id] == ("done", "ann")
    ann_progress = {p.annotator: p for p in progress.progress(project)}["ann"]
    assert (ann_progress.assigned, ann_progress.done, ann_progress.skipped, ann_progress.in_progress) == (5, 1, 1, 1)
    assert ann_progress.seconds == 42.0 + assignment.MAX_VISIT_S
    assert ann_progress.median_s_per_done == 42.0


def test_marking_an_unassigned_imported_screen_done_works_for_a_one_person_project(team_project):
    project = team_project
    with project.reading() as s:
        episode = list_episodes(s, EpisodeFilter(), 0, 1)[0]
    assignment.set_state(project, episode.id, "done", annotator="solo")
    with project.reading() as s:
        assert states_of(s, [episode.id])[episode.id] == ("done", "solo")
        assert count_episodes(s, EpisodeFilter(work_states=("done",))) == 1


def _label_copy(project, copy_id, who, boxes):
    step = _step(project, copy_id)
    edits.create_boxes(project, step.id, [{"x1": b[0], "y1": b[1], "x2": b[2], "y2": b[3], "label": b[4]}
                                          for b in boxes], actor=who)
    assignment.set_state(project, copy_id, "done", annotator=who)


def test_agreement_and_adjudication_on_the_overlap(team_project):
    project = team_project
    assignment.assign(project, EpisodeFilter(), ["ann", "bob"], overlap=0.2, lead="lead", seed=3)
    ann = {e.meta["copy_of"]: e.id for e in _queue(project, "ann") if e.kind == "copy"}
    bob = {e.meta["copy_of"]: e.id for e in _queue(project, "bob") if e.kind == "copy"}
    one, two = sorted(ann)
    # sample one: both box the same button, one calls it gold, the other distracted; ann also boxes a link
    _label_copy(project, ann[one], "ann", [(10, 10, 110, 50, "gold"), (200, 200, 260, 230, "other")])
    # blind: before bob is done, there is nothing to adjudicate and the versions are not shown
    with pytest.raises(ValueError, match="bob still labelling"):
        adjudication.adjudicate(project, one, take="ann", lead="lead")
    assert progress.awaiting_adjudication(project) == []
    _label_copy(project, bob[one], "bob", [(12, 8, 112, 52, "distracted")])
    # sample two: the same gold box on both sides
    _label_copy(project, ann[two], "ann", [(50, 50, 150, 90, "gold")])
    _label_copy(project, bob[two], "bob", [(52, 50, 150, 92, "gold")])
    assert progress.awaiting_adjudication(project) == [one, two]

    result = adjudication.team_agreement(project)
    (pair,) = result["pairs"]
    assert (pair.annotator_a, pair.annotator_b, pair.matched, pair.unmatched_a, pair.unmatched_b) == \
        ("ann", "bob", 2, 1, 0)
    assert (pair.label_agree, pair.observed) == (1, 0.5)
    assert result["samples"] == 2

    # the lead takes bob's version of one and merges on two: ann's box only
    adjudication.adjudicate(project, one, take="bob", lead="lead")
    ann_two = adjudication.versions(project, two)[0].boxes[0][0]
    adjudication.adjudicate(project, two, boxes=[ann_two.id], lead="lead")
    with project.reading() as s:
        labels = {e: [(b.label, b.author, b.meta.get("adjudicated_from")) for b in
                      s.execute(select(ActionBox).join(Step).where(Step.episode_id == e)).scalars()]
                  for e in (one, two)}
        assert states_of(s, [one, two]) == {one: ("done", "ann, bob"), two: ("done", "ann, bob")}
    assert [(lab, who) for lab, who, _ in labels[one]] == [("distracted", "bob")]
    assert labels[two] == [("gold", "ann", ann_two.id)]
    # every version kept: the copies still hold their boxes
    assert len(adjudication.versions(project, one)[0].boxes[0]) == 2
    assert progress.awaiting_adjudication(project) == []
    # the project's counts are its labels: the two adjudicated boxes, not the five in the copies
    with project.reading() as s:
        counts = project_counts(s)
    assert (counts["episodes"], counts["actions"], counts["double_annotation_copies"]) == (10, 2, 4)
    assert counts["actions_by_label"] == {"distracted": 1, "gold": 1}


def test_a_stale_write_is_refused_and_names_who_changed_the_screen(team_project):
    project = team_project
    with project.reading() as s:
        episode = list_episodes(s, EpisodeFilter(), 0, 1)[0]
    step = _step(project, episode.id)
    loaded = episode.version  # both annotators opened the screen at this version
    (box,) = edits.create_boxes(project, step.id, [{"x1": 1, "y1": 1, "x2": 30, "y2": 30, "label": "gold"}],
                                actor="ann", expected_version=loaded)
    with pytest.raises(edits.StaleEdit, match="ann changed this screen") as caught:
        edits.create_boxes(project, step.id, [{"x1": 5, "y1": 5, "x2": 50, "y2": 50, "label": "other"}],
                           actor="bob", expected_version=loaded)
    assert caught.value.actual == loaded + 1
    with pytest.raises(edits.StaleEdit):
        edits.update_boxes(project, [(box.id, {"label": "other"})], actor="bob", expected_version=loaded)
    with pytest.raises(edits.StaleEdit):
        edits.update_episode(project, episode.id, {"goal": "bob's goal"}, actor="bob", expected_version=loaded)
    # nothing of bob's landed; with the reloaded version his edit goes through
    with project.reading() as s:
        assert [b.label for b in s.execute(select(ActionBox)).scalars()] == ["gold"]
        assert s.get(Episode, episode.id).goal == ""
    edits.update_boxes(project, [(box.id, {"label": "other"})], actor="bob", expected_version=loaded + 1)
    with project.reading() as s:
        start = {}
        assert audit.replay_boxes(s, start, 0) == audit.stored_boxes(s)


def test_a_copy_of_a_sample_cannot_be_marked_by_someone_without_it(team_project):
    project = team_project
    assignment.assign(project, EpisodeFilter(), ["ann", "bob"], overlap=1.0, lead="lead")
    with project.reading() as s:
        copy = s.execute(select(Assignment).where(Assignment.annotator == "ann")).scalars().first()
    with pytest.raises(ValueError, match="is a copy, not a sample"):
        assignment.set_state(project, copy.copy_id, "done", annotator="cat")


def test_a_server_password_is_never_in_the_project_url(pg_server, tmp_path, monkeypatch):
    url = pg_server.new_database()
    without = url.replace(":team-secret@", "@")
    with Project.init(url, tmp_path / "media") as project:
        assert "team-secret" not in project.url and "team-secret" not in repr(project)
    # from the environment, never typed
    monkeypatch.setenv("SCREENLAB_DB_PASSWORD", "team-secret")
    with Project.open(without, tmp_path / "media") as project, project.reading() as s:
        assert count_episodes(s, EpisodeFilter()) == 0
    monkeypatch.setenv("SCREENLAB_DB_PASSWORD", "wrong")
    with pytest.raises(Exception, match="password authentication failed"):
        Project.open(without, tmp_path / "media")


def test_the_team_flow_through_the_command_line_on_postgresql(pg_server, tmp_path, monkeypatch, capsys):
    """Init on the server (the password from the environment, never typed), import, assign with overlap,
    two people label and finish through the API as their own identity, the lead reads progress and
    agreement and adjudicates: the same core every door uses."""
    from desktop_app import api
    from desktop_app.cli.main import main

    url = pg_server.new_database().replace(":team-secret@", "@")
    monkeypatch.setenv("SCREENLAB_DB_PASSWORD", "team-secret")
    where = [url, "--media", str(tmp_path / "media")]
    for i in range(4):
        make_image(tmp_path / "shots" / f"s{i}.png", size=(300, 200), color=(i * 50, 10, 10))
    assert main(["init", *where]) == 0
    assert main(["import", *where, str(tmp_path / "shots"), "--format", "images", "--quiet"]) == 0
    assert main(["team", "assign", *where, "ann,bob", "--overlap", "0.5"]) == 0
    assert "4 samples given out (2 to two annotators, blind)" in capsys.readouterr().out
    project = api.open_project(url, tmp_path / "media")
    for who, label in (("ann", "gold"), ("bob", "distracted")):
        monkeypatch.setenv("SCREENLAB_USER", who)
        for e in api.queue(project, who):
            if e.kind == "copy":
                _label_copy(project, e.id, who, [(10, 10, 80, 40, label)])
            else:
                assert main(["team", "state", *where, "skipped", e.key, "--reason", "blank screen"]) == 0
    monkeypatch.setenv("SCREENLAB_USER", "lead")
    capsys.readouterr()
    assert main(["team", "progress", *where]) == 0
    out = capsys.readouterr().out
    assert "2 double-annotated samples wait for adjudication" in out
    assert [line.split()[:6] for line in out.splitlines()[1:3]] == [["ann", "3", "0", "0", "2", "1"],
                                                                 ["bob", "3", "0", "0", "2", "1"]]
    assert main(["team", "agreement", *where]) == 0
    out = capsys.readouterr().out
    assert "ann / bob: 2 screens, 2 boxes matched, unmatched 0 / 0, box F1 1.000, label agreement 0.000" in out
    sample = api.awaiting_adjudication(project)[0]
    assert main(["team", "adjudicate", *where, str(sample), "--take", "bob"]) == 0
    assert main(["team", "adjudicate", *where, str(sample)]) == 2
    assert api.awaiting_adjudication(project) != [] and sample not in api.awaiting_adjudication(project)
    with project.reading() as s:
        labels = [b.label for b in s.execute(select(ActionBox).join(Step).where(Step.episode_id == sample))
                  .scalars()]
    project.close()
    assert labels == ["distracted"]


def test_a_failed_import_leaves_a_server_project_exactly_as_it_was(any_project, tmp_path):
    """All-or-nothing on both back ends: a bad line after good ones changes no row and no media file."""
    import json

    from desktop_app.formats.records import FormatError

    from conftest import snapshot

    make_image(tmp_path / "old" / "kept.png", color="purple")
    import_path(any_project, tmp_path / "old", "images")
    before = snapshot(any_project)
    folder = tmp_path / "ed"
    lines = []
    for n in (1, 2):
        make_image(folder / "images" / "popupbox_2b" / f"m{n}.png", size=(300, 200), color=(n * 40, 0, 0))
        lines.append({"target": "popupbox_2b", "goal": f"goal {n}", "modified_file": f"m{n}.html",
                      "label": {"gold": [["No thanks", [10, 10, 90, 40]]], "bad": [["Join", [100, 10, 190, 40]]]}})
    lines[1]["label"]["gold"] = [["No thanks", [90, 10, 10, 40]]]  # x2 < x1
    path = folder / "data.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    with pytest.raises(FormatError, match="line 2"):
        import_path(any_project, path, "envdistraction")
    assert snapshot(any_project) == before


def test_time_spent_gives_up_quickly_behind_another_writer_and_the_connection_keeps_its_patience(project,
                                                                                                   tmp_path):
    """A long import in another process holds SQLite's write lock: the window's time-spent write gives up
    (and is dropped) instead of freezing the window for the usual ten-second wait."""
    import sqlite3

    from sqlalchemy import text
    from sqlalchemy.exc import OperationalError

    make_image(tmp_path / "shots" / "a.png")
    import_path(project, tmp_path / "shots", "images")
    with project.reading() as s:
        episode = list_episodes(s, EpisodeFilter(), 0, 1)[0]
    assignment.assign(project, [episode.id], ["ann"], lead="lead")
    other = sqlite3.connect(project.folder / "screenlab.sqlite", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # the other process's write lock
    try:
        with pytest.raises(OperationalError, match="locked"):
            assignment.note_work(project, episode.id, 12.0, edited=True, annotator="ann", wait_s=0.2)
    finally:
        other.execute("ROLLBACK")
        other.close()
    with project.transaction() as s:  # every pooled connection is back to the usual patience
        assert s.execute(text("PRAGMA busy_timeout")).scalar() == 10000
    assignment.note_work(project, episode.id, 12.0, edited=True, annotator="ann", wait_s=0.2)
    assert {p.annotator: p.seconds for p in progress.progress(project)} == {"ann": 12.0}
