"""Hostile text where pages and texts render (issue 20): a model's or a dataset's text holding <script>, an <img>
and CSS url() pointing at a local listener, a javascript: link, an RTL override or 100 KB is shown as text, and
nothing reaches the listener. The harness is tests/hostile_pages.py's (benchmarks/reliability.py runs every
payload on every field and prints the counts)."""

from __future__ import annotations

import time

import pytest
from hostile_pages import (
    Listener,
    answer_texts,
    generated_end_to_end,
    payloads,
    run_list_texts,
    synthesised_pages,
    trajectory_texts,
    vaf_pages,
    vaf_settings,
)


def _clean(tally) -> None:
    assert tally.tried > 0
    assert tally.outside_requests == 0, tally.failures
    assert not tally.failures, tally.failures


@pytest.mark.browser
def test_llm_written_texts_render_as_text_on_synthesised_pages(renderer, project):
    with Listener() as listener:
        texts = payloads(listener.port)
        rendered = synthesised_pages(renderer, listener, texts, one_payload_per_field=True)
        generated = generated_end_to_end(project, renderer, listener)
    _clean(rendered)
    assert rendered.escaped == rendered.tried
    _clean(generated)
    assert generated.escaped + generated.refused == generated.tried and generated.refused > 0
    assert listener.hits == []


@pytest.mark.browser
def test_vaf_refuses_hostile_table_values_and_a_hostile_page_reaches_nothing(renderer, project, tmp_path):
    with Listener() as listener:
        texts = payloads(listener.port)
        table = vaf_settings(texts)
        pages = vaf_pages(project, renderer, listener, texts, tmp_path)
    _clean(table)
    assert table.refused == table.tried
    _clean(pages)
    assert pages.blocked > 0  # the page did ask: its requests were aborted in the browser
    assert listener.hits == []


@pytest.mark.gui
def test_trajectory_texts_show_in_the_labeller_as_written():
    """The task, policy, key, final response and actions of a trajectory come from a dataset or an agent: the
    labeller shows them as the text they are (it once rendered a key or a policy as markup)."""
    tally = trajectory_texts(payloads(9))
    _clean(tally)
    assert tally.escaped == tally.tried


def test_run_and_answer_texts_show_in_their_panels_as_written(project):
    """A run's name and failure (the runs panel: row, tooltips, the problem line) and a model's answer texts
    (the answers panel's card) hold each payload as written: no markup taken from them, nothing fetched."""
    from desktop_app.formats.transfer import import_path
    from desktop_app.paths import demo_dataset_dir

    import_path(project, demo_dataset_dir(), "screenlab")
    with Listener() as listener:
        texts = payloads(listener.port)
        tallies = [run_list_texts(project, texts, listener), answer_texts(texts, listener)]
        time.sleep(0.5)  # a late request would have arrived by now
        assert listener.hits == []
    for tally in tallies:
        _clean(tally)
        assert tally.escaped == tally.tried
