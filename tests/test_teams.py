"""A team's day on one shared project, on SQLite and on a real PostgreSQL server: a lead assigns samples
with an overlap, two annotators label (blind on the overlap), mark done or skip, the lead measures
agreement and adjudicates; a stale write is refused instead of overwriting a colleague's edit."""

import pytest
from sqlalchemy import select

from desktop_app.formats.transfer import import_path
from desktop_app.store import audit, edits
from desktop_app.store.models import ActionBox, Adjudication, Assignment, AuditEntry, Episode, Step
from desktop_app.store.project import NotAllowed, Project
from desktop_app.store.queries import EpisodeFilter, count_episodes, list_episodes, project_counts
from desktop_app.store.work_states import states_of
from desktop_app.teams import adjudication, assignment, progress

from conftest import make_image
from team_server import step_of


@pytest.fixture
def team_project(team, tmp_path):
    """Ten unlabelled screens, imported by the lead; the team's projects opened by person (tests/team_server.py)."""
    for i in range(10):
        make_image(tmp_path / "shots" / f"s{i:02}.png", size=(400, 300), color=(i * 20, 40, 90))
    import_path(team.open("lena"), tmp_path / "shots", "images")
    return team


def _queue(project, who, *states):
    with project.reading() as s:
        return list_episodes(s, EpisodeFilter(assignee=who, work_states=states), 0, 100)



def test_assign_with_overlap_gives_each_annotator_their_queue_and_blind_copies(team_project):
    lena, ana, ben = (team_project.open(who) for who in ("lena", "ana", "ben"))
    report = assignment.assign(lena, EpisodeFilter(), ["ana", "ben"], overlap=0.2, seed=3)
    assert (report.samples, report.double, report.already_assigned) == (10, 2, 0)
    assert report.per_annotator == {"ana": 6, "ben": 6}  # 5 each in turn, plus both on the 2 doubled
    mine, bens = _queue(ana, "ana"), _queue(ben, "ben")
    assert len(mine) == len(bens) == 6
    ana_copies = [e for e in mine if e.kind == "copy"]
    ben_copies = [e for e in bens if e.kind == "copy"]
    assert len(ana_copies) == len(ben_copies) == 2
    # the same two samples, each person on their own copy; nobody else's copy in a queue
    assert {e.meta["copy_of"] for e in ana_copies} == {e.meta["copy_of"] for e in ben_copies}
    assert not {e.id for e in mine} & {e.id for e in bens}
    # copies are not samples: the project's list, runs and exports still see ten
    with lena.reading() as s:
        assert count_episodes(s, EpisodeFilter()) == 10
    # assigning again gives out nothing twice
    again = assignment.assign(lena, EpisodeFilter(), ["rita"])
    assert (again.samples, again.already_assigned) == (0, 10)
    if team_project.on_server:
        # an annotator's list holds their own work only: the server shows ana nothing of ben's
        with ana.reading() as s:
            assert count_episodes(s, EpisodeFilter()) == 4  # her samples labelled in place
            assert _queue(ana, "ben") == []
        with pytest.raises(NotAllowed, match="only the team's lead gives out work"):
            assignment.assign(ana, EpisodeFilter(), ["ana"])
        with pytest.raises(ValueError, match="not in this project's team: Ana"):
            assignment.assign(lena, EpisodeFilter(), ["Ana"])


def test_states_done_and_skipped_per_annotator_with_progress_and_time(team_project):
    lena, ana = team_project.open("lena"), team_project.open("ana")
    assignment.assign(lena, EpisodeFilter(), ["ana", "ben"])
    first, second, third = _queue(ana, "ana")[:3]
    edits.create_boxes(ana, step_of(ana, first.id).id, [{"x1": 10, "y1": 10, "x2": 60, "y2": 40, "label": "gold"}])
    assignment.note_work(ana, first.id, 42.0, edited=True)
    assignment.set_state(ana, first.id, "done")
    with pytest.raises(ValueError, match="reason"):
        assignment.set_state(ana, second.id, "skipped")
    assignment.set_state(ana, second.id, "skipped", reason="screen is blank")
    assignment.note_work(ana, third.id, 5000.0, edited=True)  # lunch: capped
    assert [e.id for e in _queue(ana, "ana", "done")] == [first.id]
    assert [e.id for e in _queue(ana, "ana", "skipped")] == [second.id]
    assert [e.id for e in _queue(ana, "ana", "in progress")] == [third.id]
    assert len(_queue(ana, "ana", "to do")) == len(_queue(ana, "ana", "unlabelled")) == 2
    # done is final for her: a second look adds no time, and (on a server) she cannot reopen it herself
    assignment.note_work(ana, first.id, 30.0, edited=False)
    if team_project.on_server:
        with pytest.raises(edits.EditRefused, match="final for you"):
            assignment.set_state(ana, first.id, "in_progress")
    with lena.reading() as s:
        shown = states_of(s, [first.id, second.id, third.id], annotator="ana")
        overall = states_of(s, [first.id], annotator=None)
        # the same states through the overall filter the list uses when no annotator is chosen
        assert [e.id for e in list_episodes(s, EpisodeFilter(work_states=("done",)))] == [first.id]
        # everything was given out: nothing is unlabelled, the 7 nobody started are to do
        assert count_episodes(s, EpisodeFilter(work_states=("unlabelled",))) == 0
        assert count_episodes(s, EpisodeFilter(work_states=("to do",))) == 7
    assert [shown[i][0] for i in (first.id, second.id, third.id)] == ["done", "skipped", "in progress"]
    assert overall[first.id] == ("done", "ana")
    ana_progress = {p.annotator: p for p in progress.progress(lena)}["ana"]
    assert (ana_progress.assigned, ana_progress.done, ana_progress.skipped, ana_progress.in_progress) == (5, 1, 1, 1)
    assert ana_progress.seconds == 42.0 + assignment.MAX_VISIT_S
    assert ana_progress.median_s_per_done == 42.0
    # the lead reopens it; then it is hers again
    assignment.set_state(lena, first.id, "in_progress", annotator="ana")
    assignment.set_state(ana, first.id, "done")


def test_marking_an_unassigned_imported_screen_done_works_for_a_one_person_project(team_project):
    project = team_project.open("lena")
    with project.reading() as s:
        episode = list_episodes(s, EpisodeFilter(), 0, 1)[0]
    assignment.set_state(project, episode.id, "done")
    with project.reading() as s:
        assert states_of(s, [episode.id])[episode.id] == ("done", "lena")
        assert count_episodes(s, EpisodeFilter(work_states=("done",))) == 1


def test_a_typo_in_a_name_makes_no_new_annotator_and_an_annotator_speaks_only_for_herself(team_project):
    lena, ben = team_project.open("lena"), team_project.open("ben")
    assignment.assign(lena, EpisodeFilter(), ["ana", "ben"], overlap=1.0)
    ben_copy = _queue(ben, "ben")[0]
    with pytest.raises(ValueError, match="'Ana' is not in this project's team"):
        assignment.set_state(lena, ben_copy.id, "done", annotator="Ana")
    if team_project.on_server:  # on SQLite one person is everyone
        with pytest.raises(ValueError, match="you can only act on your own work, not ana's"):
            assignment.set_state(ben, ben_copy.id, "done", annotator="ana")
    with lena.reading() as s:
        assert {a.annotator for a in s.execute(select(Assignment)).scalars()} == {"ana", "ben"}
        assert all(a.state == "todo" for a in s.execute(select(Assignment)).scalars())


def _label_copy(project, copy_id, boxes):
    step = step_of(project, copy_id)
    edits.create_boxes(project, step.id, [{"x1": b[0], "y1": b[1], "x2": b[2], "y2": b[3], "label": b[4]}
                                          for b in boxes])
    assignment.set_state(project, copy_id, "done")


def test_agreement_and_adjudication_on_the_overlap(team_project):
    lena, ana, ben, rita = (team_project.open(who) for who in ("lena", "ana", "ben", "rita"))
    assignment.assign(lena, EpisodeFilter(), ["ana", "ben"], overlap=0.2, seed=3)
    anas = {e.meta["copy_of"]: e.id for e in _queue(ana, "ana") if e.kind == "copy"}
    bens = {e.meta["copy_of"]: e.id for e in _queue(ben, "ben") if e.kind == "copy"}
    one, two = sorted(anas)
    # sample one: both box the same button, one calls it gold, the other distracted; ana also boxes a link
    _label_copy(ana, anas[one], [(10, 10, 110, 50, "gold"), (200, 200, 260, 230, "other")])
    # blind: before ben is done, there is nothing to adjudicate and the versions are not shown
    with pytest.raises(ValueError, match="ben still labelling"):
        adjudication.adjudicate(lena, one, take="ana")
    assert progress.awaiting_adjudication(lena) == []
    # her finished copy is kept as she finished it, for everyone
    with pytest.raises(edits.EditRefused, match="ana's copy, marked done"):
        edits.create_boxes(lena, step_of(lena, anas[one]).id, [{"x1": 1, "y1": 1, "x2": 9, "y2": 9, "label": "gold"}])
    _label_copy(ben, bens[one], [(12, 8, 112, 52, "distracted")])
    # sample two: the same gold box on both sides
    _label_copy(ana, anas[two], [(50, 50, 150, 90, "gold")])
    _label_copy(ben, bens[two], [(52, 50, 150, 92, "gold")])
    assert progress.awaiting_adjudication(lena) == [one, two]

    result = adjudication.team_agreement(lena)
    (pair,) = result["pairs"]
    assert (pair.annotator_a, pair.annotator_b, pair.matched, pair.unmatched_a, pair.unmatched_b) == \
        ("ana", "ben", 2, 1, 0)
    assert (pair.label_agree, pair.observed) == (1, 0.5)
    assert result["samples"] == 2
    if team_project.on_server:  # only the lead decides
        for who in (ben, rita):
            with pytest.raises(NotAllowed, match="only the team's lead adjudicates"):
                adjudication.adjudicate(who, one, take="ben")

    # the lead takes ben's version of one and merges on two: ana's box only
    adjudication.adjudicate(lena, one, take="ben")
    ana_two = adjudication.versions(lena, two)[0].boxes[0][0]
    adjudication.adjudicate(lena, two, boxes=[ana_two.id])
    with lena.reading() as s:
        labels = {e: [(b.label, b.author, b.meta.get("adjudicated_from")) for b in
                      s.execute(select(ActionBox).join(Step).where(Step.episode_id == e)).scalars()]
                  for e in (one, two)}
        assert states_of(s, [one, two]) == {one: ("done", "ana, ben"), two: ("done", "ana, ben")}
        leads = {a.episode_id: a.lead for a in s.execute(select(Adjudication)).scalars()}
    assert leads == {one: "lena", two: "lena"}
    assert [(lab, who) for lab, who, _ in labels[one]] == [("distracted", "ben")]
    assert labels[two] == [("gold", "ana", ana_two.id)]
    # every version kept: the copies still hold their boxes
    assert len(adjudication.versions(lena, one)[0].boxes[0]) == 2
    assert progress.awaiting_adjudication(lena) == []
    # the project's counts are its labels: the two adjudicated boxes, not the five in the copies
    with lena.reading() as s:
        counts = project_counts(s)
    assert (counts["episodes"], counts["actions"], counts["double_annotation_copies"]) == (10, 2, 4)
    assert counts["actions_by_label"] == {"distracted": 1, "gold": 1}


def test_a_stale_write_is_refused_and_names_who_changed_the_screen(team_project):
    lena, rita = team_project.open("lena"), team_project.open("rita")
    with lena.reading() as s:
        episode = list_episodes(s, EpisodeFilter(), 0, 1)[0]
    step = step_of(lena, episode.id)
    loaded = episode.version  # both opened the screen at this version
    (box,) = edits.create_boxes(lena, step.id, [{"x1": 1, "y1": 1, "x2": 30, "y2": 30, "label": "gold"}],
                                expected_version=loaded)
    with pytest.raises(edits.StaleEdit, match="lena changed this screen") as caught:
        edits.create_boxes(rita, step.id, [{"x1": 5, "y1": 5, "x2": 50, "y2": 50, "label": "other"}],
                           expected_version=loaded)
    assert caught.value.actual == loaded + 1
    with pytest.raises(edits.StaleEdit):
        edits.update_boxes(rita, [(box.id, {"label": "other"})], expected_version=loaded)
    with pytest.raises(edits.StaleEdit):
        edits.update_episode(rita, episode.id, {"goal": "rita's goal"}, expected_version=loaded)
    # nothing of rita's landed; with the reloaded version her edit goes through
    with lena.reading() as s:
        assert [b.label for b in s.execute(select(ActionBox)).scalars()] == ["gold"]
        assert s.get(Episode, episode.id).goal == ""
    edits.update_boxes(rita, [(box.id, {"label": "other"})], expected_version=loaded + 1)
    with lena.reading() as s:
        start = {}
        assert audit.replay_boxes(s, start, 0) == audit.stored_boxes(s)
        assert [e.actor for e in s.execute(select(AuditEntry).where(AuditEntry.entity == "action_box")
                                           .order_by(AuditEntry.id)).scalars()] == ["lena", "rita"]


def test_a_copy_of_a_sample_cannot_be_marked_by_someone_without_it(team_project):
    lena = team_project.open("lena")
    assignment.assign(lena, EpisodeFilter(), ["ana", "ben"], overlap=1.0)
    with lena.reading() as s:
        copy = s.execute(select(Assignment).where(Assignment.annotator == "ana")).scalars().first()
    with pytest.raises(ValueError, match="is a copy, not a sample"):
        assignment.set_state(lena, copy.copy_id, "done")
    with pytest.raises(ValueError, match="labelled blind on copies by ana, ben"):
        assignment.set_state(lena, copy.episode_id, "done")


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
    """Every person on their own login, through the CLI only: the owner creates the project and adds a lead
    (the password printed once); the lead imports, adds two annotators and assigns with overlap; each
    annotator reads their screen's version, draws with it and finishes; the lead reads progress and
    agreement and adjudicates. An annotator's attempt to adjudicate is refused in one line."""
    from desktop_app.cli.main import main

    from team_server import PEOPLE

    owner_url = pg_server.new_database()
    url = owner_url.replace(":team-secret@", "@")
    media = ["--media", str(tmp_path / "media")]
    passwords = {"screenlab": "team-secret"}

    def as_(who, *argv):
        monkeypatch.setenv("SCREENLAB_DB_PASSWORD", passwords[who])
        monkeypatch.setenv("SCREENLAB_USER", "not-who-the-server-says")
        person_url = url.replace("//screenlab@", f"//{who}@")
        command, *rest = argv
        words = command.split()
        return main([*words, person_url, *media, *rest])

    def password_printed() -> str:
        out = capsys.readouterr().out
        return next(line.split(": ", 1)[1] for line in out.splitlines() if "password (shown once" in line)

    for i in range(4):
        make_image(tmp_path / "shots" / f"s{i}.png", size=(300, 200), color=(i * 50, 10, 10))
    assert as_("screenlab", "init") == 0
    with Project.open(owner_url, tmp_path / "media") as owner, owner.engine.begin() as conn:
        for who in PEOPLE:
            conn.exec_driver_sql(f'DROP ROLE IF EXISTS "{who}"')
    capsys.readouterr()
    assert as_("screenlab", "team add-member", "lena", "--role", "lead") == 0
    passwords["lena"] = password_printed()
    assert as_("lena", "import", str(tmp_path / "shots"), "--format", "images", "--quiet") == 0
    for who in ("ana", "ben"):
        capsys.readouterr()
        assert as_("lena", "team add-member", who) == 0
        passwords[who] = password_printed()
    assert as_("lena", "team assign", "ana,ben", "--overlap", "0.5") == 0
    assert "4 samples given out (2 to two annotators, blind)" in capsys.readouterr().out
    for who, label in (("ana", "gold"), ("ben", "distracted")):
        capsys.readouterr()
        assert as_(who, "team whoami") == 0
        assert capsys.readouterr().out.strip() == f"{who} (annotator)"
        with Project.open(url.replace("//screenlab@", f"//{who}:{passwords[who]}@"), tmp_path / "media") as mine:
            queue = [(e.key, e.kind, step_of(mine, e.id).id) for e in _queue(mine, who)]
        for key, kind, step in queue:
            if kind == "copy":
                capsys.readouterr()
                assert as_(who, "boxes show", str(step)) == 0
                version = int(capsys.readouterr().out.split(" at version ")[1].split()[0])
                assert as_(who, "boxes add", str(step), "10,10,80,40", "--label", label,
                           "--expected-version", str(version)) == 0
                assert as_(who, "team state", "done", key) == 0
            else:
                assert as_(who, "team state", "skipped", key, "--reason", "blank screen") == 0
    capsys.readouterr()
    assert as_("lena", "team progress") == 0
    out = capsys.readouterr().out
    assert "2 double-annotated samples wait for adjudication" in out
    assert [line.split()[:6] for line in out.splitlines()[1:3]] == [["ana", "3", "0", "0", "2", "1"],
                                                                 ["ben", "3", "0", "0", "2", "1"]]
    assert as_("lena", "team agreement") == 0
    out = capsys.readouterr().out
    assert "ana / ben: 2 screens, 2 boxes matched, unmatched 0 / 0, box F1 1.000, label agreement 0.000" in out
    with Project.open(url.replace("//screenlab@", f"//lena:{passwords['lena']}@"), tmp_path / "media") as lead:
        sample = progress.awaiting_adjudication(lead)[0]
    capsys.readouterr()
    assert as_("ben", "team adjudicate", str(sample), "--take", "ben") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "only the team's lead adjudicates" in err
    assert as_("lena", "team adjudicate", str(sample), "--take", "ben") == 0
    assert "adjudicated by lena" in capsys.readouterr().out
    assert as_("lena", "team adjudicate", str(sample)) == 2
    with Project.open(owner_url, tmp_path / "media") as owner, owner.reading() as s:
        labels = [(b.label, b.author) for b in s.execute(select(ActionBox).join(Step).where(Step.episode_id == sample))
                  .scalars()]
        actors = {e.actor for e in s.execute(select(AuditEntry)).scalars()}
    assert labels == [("distracted", "ben")]
    assert actors == {"screenlab", "lena", "ana", "ben"}  # never the name in SCREENLAB_USER


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


def test_a_skip_reason_is_given_by_the_api_and_printed_by_the_queue_command(project, tmp_path, capsys):
    from desktop_app import api
    from desktop_app.cli.main import main

    for i in range(2):
        make_image(tmp_path / "shots" / f"s{i}.png", size=(200, 100), color=(i * 90, 40, 90))
    import_path(project, tmp_path / "shots", "images")
    with project.reading() as s:
        first, second = [e.id for e in list_episodes(s, EpisodeFilter())]
    assignment.set_state(project, first, "skipped", reason="the page did not load")
    assignment.set_state(project, second, "done")
    assert api.skip_reasons(project, [first, second]) == {first: [("tester", "the page did not load")]}
    assert main(["team", "queue", str(project.folder)]) == 0
    lines = capsys.readouterr().out.splitlines()
    [skipped] = [line for line in lines if "skipped" in line]
    assert "tester: the page did not load" in skipped
    assert not any("did not load" in line for line in lines if line is not skipped)
