"""Plain-text formatting of rates, shared by the protocols' summaries (`screenlab eval`)."""

from __future__ import annotations

NO_DATA = "-"  # a rate over no sample: never printed as 0.0 %
RATE_WIDTH = 19  # " 45.8 [27.9,  64.9]"
RATES = (("acc_gold", "Acc_gold"), ("acc_dist", "Acc_dist"), ("acc_other", "Acc_other"), ("acc_inv", "Acc_inv"))


def pct(value: float | None) -> str:
    return NO_DATA if value is None else f"{100 * value:.1f}%"


def rate_text(cell: dict, key: str) -> str:
    value = cell.get(key)
    if value is None or cell.get(key + "_ci95") is None:
        return f"{NO_DATA:>5}".ljust(RATE_WIDTH)
    lo, hi = cell[key + "_ci95"]
    return f"{100 * value:5.1f} [{100 * lo:4.1f}, {100 * hi:5.1f}]".ljust(RATE_WIDTH)


def rate_header(first: str, second: str) -> str:
    return f"{first:<16}{second:<16}{'n':>6}  " + "".join(f"{title:<{RATE_WIDTH + 2}}" for _, title in RATES) \
        + "wrong format"


def rate_line(first: str, second: str, cell: dict) -> str:
    """One row of rates: '<first> <second> n  45.8 [27.9,  64.9]  ...  wrong-format count'."""
    return (f"{first:<16}{second:<16}{cell['n']:>6}  " + "".join(rate_text(cell, k) + "  " for k, _ in RATES)
            + str(cell["wrong_format"]))
