"""The Wilson interval (evaluation/metrics.py) against values computed independently: by hand, and by scipy
(`binomtest(k, n).proportion_ci(method="wilson")`, the oracle of the dev extras). Over no data it is None,
and every place that shows or writes one shows "-" or writes an empty value, never 0 (ADR 0031)."""

from __future__ import annotations

import csv

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_app.capability.metrics import Rate
from desktop_app.evaluation import chart, tables
from desktop_app.evaluation.metrics import summarize, wilson
from desktop_app.runs.protocols.capability import rate_text as capability_text
from desktop_app.runs.text import rate_line
from desktop_app.vaf.metrics import _rate as vaf_rate
from desktop_app.vaf.metrics import summary_lines as vaf_lines

# --------------------------------------------------------------------------- values


def test_wilson_by_hand():
    # z = 1.959964, z^2 = 3.841459. centre = (p + z^2/2n) / (1 + z^2/n), half = z sqrt(p(1-p)/n + z^2/4n^2) / (1 + z^2/n).
    # 0 of 10: p = 0 -> centre = half = (z^2/20) / (1 + z^2/10): lo = 0, hi = z^2 / (10 + z^2) = 3.841459 / 13.841459
    # = 0.277533.
    assert wilson(0, 10) == pytest.approx((0.0, 0.277533), abs=1e-6)
    # 5 of 10: centre 0.5; half = 1.959964 * sqrt(0.025 + 0.009604) / 1.384146 = 1.959964 * 0.186021 / 1.384146
    # = 0.263407 -> (0.236593, 0.763407).
    assert wilson(5, 10) == pytest.approx((0.236593, 0.763407), abs=1e-6)
    # 10 of 10 mirrors 0 of 10: lo = 10 / (10 + z^2) = 0.722467, hi = 1.
    assert wilson(10, 10) == pytest.approx((0.722467, 1.0), abs=1e-6)


@pytest.fixture(scope="module")
def binomtest():
    """scipy's, imported by the worker that runs these tests, not at the top: every xdist worker imports this
    file to collect it, and scipy.stats costs a second of CPU (a fixture, so no Hypothesis example pays it)."""
    from scipy.stats import binomtest

    return binomtest


@pytest.mark.parametrize("k, n", [(0, 1), (1, 1), (3, 5), (7, 10), (1, 1000), (999, 1000), (123, 4567)])
def test_wilson_equals_scipy(k, n, binomtest):
    ci = binomtest(k, n).proportion_ci(method="wilson")
    assert wilson(k, n) == pytest.approx((ci.low, ci.high), abs=1e-12)


@given(st.integers(1, 5000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_equals_scipy_anywhere(binomtest, kn):
    k, n = kn
    ci = binomtest(k, n).proportion_ci(method="wilson")
    assert wilson(k, n) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_wilson_over_no_data_is_none_and_impossible_counts_raise():
    assert wilson(0, 0) is None
    with pytest.raises(ValueError, match="0 <= successes <= n"):
        wilson(6, 5)
    with pytest.raises(ValueError, match="0 <= successes <= n"):
        wilson(-1, 5)


# --------------------------------------------------------------------------- "-" wherever it is shown


def test_a_cell_over_no_scored_sample_shows_a_dash_and_exports_empty(tmp_path):
    # The chat cell's two requests both failed: n = 0 there, the popup cell has 2 of 3 gold.
    rows = ([{"run": 1, "agent": "a", "pattern": "direct", "scenario": "chat", "verdict": "error"}] * 2
            + [{"run": 1, "agent": "a", "pattern": "direct", "scenario": "popup", "verdict": v}
               for v in ("gold", "gold", "invalid")])
    chat = summarize(rows, by=("scenario",))["by_scenario"]["chat"]
    assert (chat["n"], chat["errors"], chat["acc_gold"], chat["acc_gold_ci95"]) == (0, 2, None, None)
    table = tables.build_table(rows)
    cell = table.cell(("a", "direct"), "chat")
    assert tables.cell_text(cell, "acc_gold") == "-"
    # n counts scored samples (3); popup: scipy gives (0.2077, 0.9385) for 2 of 3
    assert "| a | direct | 3 | - | - | - | - | 0 | 66.7 [20.8, 93.9] |" in tables.to_markdown(table)
    assert "& -- & -- & -- & --" in tables.to_latex(table)
    with tables.to_csv(table, tmp_path / "t.csv").open(newline="") as fh:
        written = {r["scenario"]: r for r in csv.DictReader(fh)}
    assert [written["chat"][k] for k in ("acc_gold", "acc_gold_lo", "acc_gold_hi")] == ["", "", ""]
    assert written["popup"]["acc_gold"] == "0.666667"
    assert tables.read_csv(tmp_path / "t.csv").cell(("a", "direct"), "chat")["acc_gold_ci95"] is None
    # the plot draws no bar there (not a 0 % bar), and `screenlab eval` prints "-"
    (plot,) = [p for p in chart.layout(table) if p.column == "chat"]
    assert plot.bars == []
    assert rate_line("a", "chat", chat).split()[3:7] == ["-", "-", "-", "-"]


def test_capability_and_page_variant_rates_over_nothing_show_a_dash():
    assert Rate(0, 0).ci95 is None and capability_text(Rate(0, 0).as_dict()) == "-"
    assert vaf_rate(0, 0) == {"hits": 0, "n": 0, "rate": None, "ci95": None}
    assert vaf_lines({"tcr": vaf_rate(0, 0)})[0].split() == ["TCR", "-"]
