"""Finding samples (issue 21, item 17): the search covers box texts, and the list filters by who changed
a sample and when."""

from __future__ import annotations

from datetime import timedelta

import pytest
from PySide6.QtWidgets import QApplication
from sqlalchemy import update

from desktop_app.store import models as m
from desktop_app.store.queries import EpisodeFilter, count_episodes, list_episodes
from desktop_app.store.types import utcnow

from gui_helpers import drag, key
from test_gui_editing import open_window

pytestmark = pytest.mark.gui


def test_search_box_texts_and_filter_by_who_changed_what_and_when(qtbot, demo_copy):
    window = open_window(qtbot, demo_copy)
    browser = window.browser
    # a button's text, not in any goal
    with window.project.reading() as s:
        episodes = list_episodes(s, EpisodeFilter(), limit=100)
        assert not any("send me my code" in e.goal.lower() for e in episodes)
    browser.search.setText("send me my code")
    browser.apply_filter()
    assert browser.model.rowCount() >= 1
    assert "send me my code" in {b.element_text.lower() for b in window.ws.boxes.values()}
    browser.search.clear()
    browser.apply_filter()

    # ann moves a box on the third sample: "Changed by ann" lists that one
    for _ in range(2):
        key(window, "D")
    changed = window.ws.episode.id
    rect = window.scene.items_by_id[min(window.scene.items_by_id)].rect()
    drag(window.view, (rect.center().x(), rect.center().y()), (rect.center().x() + 5, rect.center().y()))
    browser.reload_queues()
    index = browser.changed_by.findData("ann")
    assert index > 0 and browser.changed_by.itemText(index) == "Changed by ann"
    browser.changed_by.setCurrentIndex(index)
    QApplication.processEvents()
    assert browser.model.rowCount() == 1 and browser.model.episode_id_at(0) == changed

    # when: a sample last changed 40 days ago drops out of "Changed in 30 days"
    browser.changed_by.setCurrentIndex(0)
    with window.project.transaction() as s:
        s.execute(update(m.Episode).where(m.Episode.id == changed).values(updated_at=utcnow() - timedelta(days=40)))
    total = browser.model.rowCount()
    browser.changed_within.setCurrentIndex(browser.changed_within.findData(30))
    QApplication.processEvents()
    assert browser.model.rowCount() == total - 1
    with window.project.reading() as s:
        assert count_episodes(s, EpisodeFilter(changed_since=utcnow() - timedelta(days=50))) == total
    window.close()
