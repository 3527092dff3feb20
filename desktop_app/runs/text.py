"""Plain-text formatting of rates, shared by the protocols' summaries (`screenlab eval`)."""

from __future__ import annotations

NO_DATA = "-"  # a rate over no sample: never printed as 0.0 %


def pct(value: float | None) -> str:
    return NO_DATA if value is None else f"{100 * value:.1f}%"


def rate_cells(cell: dict) -> str:
    """'Acc_gold 45.8% [27.9, 64.9]  Acc_dist ...' for a metrics.Metric.as_dict() cell."""
    out = []
    for key, title in (("acc_gold", "gold"), ("acc_dist", "dist"), ("acc_other", "other"), ("acc_inv", "inv")):
        value = cell.get(key)
        if value is None:
            out.append(f"{title} {NO_DATA:<18}")
        else:
            lo, hi = cell[key + "_ci95"]
            out.append(f"{title} {pct(value):>6} [{100 * lo:4.1f}, {100 * hi:5.1f}]")
    return "  ".join(out)
