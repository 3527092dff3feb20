"""The API's browsing and review doors (desktop_app/api/samples.py, review.py, projects.py): what the window's
list, grid, canvas and verification views ask instead of opening sessions on the store themselves
(tests/layers.py, rule 6), checked on the demo project as a script would call them."""

from __future__ import annotations

import pytest

from desktop_app import api
from desktop_app.api import boxes, projects, review, samples, teams


@pytest.fixture
def demo(demo_copy):
    with api.open_project(demo_copy) as project:
        yield project


def test_each_domain_modules_names_are_the_apis_own():
    for module in (boxes, projects, review, samples, teams):
        for name in module.__all__:
            assert getattr(api, name) is getattr(module, name), f"api.{name} is not {module.__name__}.{name}"
            assert name in api.__all__, name
    assert len(api.__all__) == len(set(api.__all__))
    # names that scripts used before the API was split by domain still work
    for name in ("open_project", "init_project", "ProjectError", "add_boxes", "screen", "members", "where"):
        assert name in api.__all__


def test_the_list_starts_counted_or_with_its_first_page(demo):
    everything = api.EpisodeFilter()
    total = api.count_samples(demo, everything)
    assert total == 28
    small = api.list_start(demo, everything, page=5)  # a project under the threshold: counted at once
    assert (small.count, small.first_page, small.whole) == (total, None, True)
    big = api.list_start(demo, everything, page=5, count_below=0)  # "big": the first page, the rest counted later
    assert big.count == 5 and not big.whole
    assert big.first_page == api.sample_rows(demo, everything, 0, 5)
    assert api.page_starts(demo, everything, 5) == (total, [row[0] for row in api.sample_rows(demo, everything, 0, 28)][::5])
    one_page = api.list_start(demo, everything, page=100, count_below=0)  # all on the first page: nothing left
    assert one_page.count == total and one_page.whole
    popups = api.EpisodeFilter(scenarios=("popup",))
    rows = api.sample_rows(demo, popups, 0, 100)
    assert rows and {row[3] for row in rows} == {"popup"}
    assert api.position_of(demo, popups, rows[-1][0]) == len(rows) - 1
    assert api.sample_rows(demo, popups, 0, 100, after_id=rows[0][0]) == rows[1:]


def test_an_episode_opens_with_its_screen_and_boxes_in_one_call(demo):
    first = api.sample_rows(demo, api.EpisodeFilter(), 0, 1)[0][0]
    view = api.open_episode(demo, first, "ann", step_index=99)  # past the end: the last step
    assert view.episode.id == first and view.step is view.steps[-1]
    assert [b.id for b in view.boxes] == [b.id for b in api.screen(demo, view.step.id).boxes]
    assert view.screen is not None and api.step_screen_at(demo, first, view.step.index).id == view.screen.id
    assert api.screen_and_boxes(demo, view.step)[0].id == view.screen.id
    assert api.screens_by_id(demo, [view.step.screen_id, None]) == {view.screen.id: view.screen}
    sha, ext, width, height = api.first_screens(demo, [first])[first]
    assert (sha, ext, width, height) == (view.screen.sha256, view.screen.ext, view.screen.width, view.screen.height)
    assert (view.own_copy, view.open_return) == (None, None)  # no team work on a demo sample
    gone = api.open_episode(demo, 10_000, "ann")
    assert (gone.episode, gone.steps, gone.step, gone.boxes) == (None, [], None, [])


def test_the_window_reopens_where_its_person_edited_last(demo):
    assert api.last_edited(demo, "ann") is None
    first, second = (row[0] for row in api.sample_rows(demo, api.EpisodeFilter(), 0, 2))
    api.edit_episode(demo, second, {"goal": "Changed by ann"}, actor="ann")
    assert api.last_edited(demo, "ann") == second
    assert "ann" in api.editors(demo)
    assert api.filter_choices(demo).scenarios == ["chat", "popup", "recommendation", "search"]


def test_a_verdict_and_its_undo(demo):
    pending = api.sample_rows(demo, api.EpisodeFilter(review_statuses=("pending",)), 0, 1)[0][0]
    before = api.current_verdict(demo, pending)
    counts = api.review_counts(demo)
    assert before.status == "pending"
    assert api.decide_review(demo, pending, "reject", "rita", api.REJECT_REASONS[0]) == "rejected"
    assert api.current_verdict(demo, pending) == api.Verdict("rejected", api.REJECT_REASONS[0], "rita")
    assert api.review_counts(demo)["rejected"] == counts.get("rejected", 0) + 1
    api.restore_verdict(demo, pending, before)
    assert api.current_verdict(demo, pending).status == "pending" and api.review_counts(demo) == counts
    assert api.review_items(demo, pending)[-1].status == "pending"


def test_the_server_url_is_checked_before_anything_is_opened():
    assert api.server_url("postgresql+psycopg://ann@db.example:5432/screens", "pw").endswith(
        "ann:pw@db.example:5432/screens")
    with pytest.raises(ValueError, match="PostgreSQL"):
        api.server_url("sqlite:///x.db")
    assert api.is_url(api.SERVER_URL_EXAMPLE) and not api.is_project_folder(api.SERVER_URL_EXAMPLE)
