"""Result tables shaped like EnvDistraction's Tables 3-7, and their CSV / Markdown / LaTeX writers.

A table has one row per agent (and working pattern) and one column group per scenario (or per
pattern, or per rule set), each group holding Acc_gold, Acc_dist, Acc_other and Acc_inv with 95 %
Wilson intervals, and the wrong-format count (Markdown and the dashboard):

    | Agent  | Pattern | n  | popup Acc_gold    | popup Acc_dist   | ... |
    | center | direct  | 24 | 11.1 [2.0, 43.5]  | 0.0 [0.0, 29.9]  | ... |

Cells pool every run with the same row key (two runs of one agent and pattern count together).
Rates are computed by metrics.Metric, so the dashboard, `screenlab eval` and these files agree. A
rate over no scored sample is "-" (an empty field in the CSV), never 0.

The CSV is tidy (one line per row x column cell, rates as 0-1 fractions, counts included) so
pandas or R read it directly, and `read_csv` rebuilds the Table from it. Markdown and LaTeX show
percentages with one decimal; the LaTeX uses booktabs and escapes every cell.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from desktop_app.evaluation.metrics import Metric

METRICS = ("acc_gold", "acc_dist", "acc_other", "acc_inv")
TITLES = {"acc_gold": "Acc_gold", "acc_dist": "Acc_dist", "acc_inv": "Acc_inv", "acc_other": "Acc_other"}
# the verdict a metric counts: what a click on its bar filters the browser to
METRIC_VERDICT = {"acc_gold": "gold", "acc_dist": "distracted", "acc_inv": "invalid", "acc_other": "other"}
ALL = "all"  # the column pooling every scenario (or pattern)
FIELD_TITLES = {"agent": "Agent", "pattern": "Pattern", "scenario": "Scenario", "run": "Run", "rules": "Rules",
                "class": "Class"}
NO_DATA = "-"  # a rate over no scored sample: never shown as 0 %
SCORED = {"gold", "distracted", "other", "invalid", "error"}
# CSV columns after the row and column keys; rates are 0-1, _lo/_hi the Wilson interval
CSV_VALUES = ("n", "errors", "excluded", "wrong_format", "both", "gold", "distracted", "other", "invalid",
              *(f"{k}{s}" for k in ("acc_gold", "acc_dist", "acc_other", "acc_inv") for s in ("", "_lo", "_hi")),
              "runs")


@dataclass
class Table:
    title: str
    row_fields: tuple[str, ...]  # e.g. ("agent", "pattern")
    column_field: str  # e.g. "scenario"; every column value (plus ALL) is one group of metric columns
    rows: list[tuple[str, ...]] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    # (row, column) -> Metric.as_dict() plus "gold".."invalid" counts and "runs": [run ids]
    cells: dict[tuple[tuple[str, ...], str], dict] = field(default_factory=dict)
    # row -> distinct samples scored (run, step); set when columns may share samples (rule sets side by side)
    totals: dict[tuple[str, ...], int] = field(default_factory=dict)

    def cell(self, row: tuple[str, ...], column: str) -> dict | None:
        return self.cells.get((tuple(row), column))

    def row_n(self, row: tuple[str, ...]) -> int:
        """Samples behind a row: counted when built, else its ALL cell, else the sum over its columns."""
        if tuple(row) in self.totals:
            return self.totals[tuple(row)]
        total = self.cell(row, ALL)
        if total is not None:
            return total["n"]
        return sum(c["n"] for (r, _), c in self.cells.items() if r == tuple(row))

    def row_label(self, row: tuple[str, ...]) -> str:
        return " / ".join(v for v in row if v)

    def data_columns(self) -> list[str]:
        """Columns without the pooled one: one subplot each in a breakdown plot."""
        return [c for c in self.columns if c != ALL] or list(self.columns)


def _key(row: dict, fields: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(str(row.get(f, "") or "") for f in fields)


def build_table(rows: Iterable[dict], row_fields: tuple[str, ...] = ("agent", "pattern"),
                column_field: str = "scenario", title: str = "", with_all: bool = True,
                column_order: list[str] | None = None) -> Table:
    """rows: evaluation.rows dicts (one rule set, or several with "rules" in a key field). Rows keep
    the order their first prediction came in (runs by id); columns follow `column_order` (the rest
    sorted), ALL last when there is more than one."""
    metrics: dict[tuple, Metric] = defaultdict(Metric)
    runs: dict[tuple, set[int]] = defaultdict(set)
    samples: dict[tuple, set] = defaultdict(set)
    order: dict[tuple[str, ...], None] = {}
    columns: set[str] = set()
    for row in rows:
        if row.get("verdict") not in SCORED:
            continue  # not scored (yet)
        key = _key(row, row_fields)
        column = str(row.get(column_field, "") or "")
        order.setdefault(key, None)
        columns.add(column)
        for cell in ((key, column), (key, ALL)):
            metrics[cell].add_row(row)
            runs[cell].add(int(row.get("run", 0) or 0))
        if row.get("verdict") != "error" and not row.get("excluded"):
            samples[key].add((row.get("run"), row.get("step_id", id(row))))
    cols = [c for c in (column_order or []) if c in columns] + sorted(columns - set(column_order or []))
    if with_all and len(cols) > 1:
        cols.append(ALL)
    table = Table(title, tuple(row_fields), column_field, list(order), cols)
    for (key, column), metric in metrics.items():
        if column in cols:
            table.cells[(key, column)] = _cell(metric, runs[(key, column)])
    if not with_all:  # columns may share samples (rule sets side by side): count each sample once
        table.totals = {key: len(samples[key]) for key in order}
    return table


def _cell(metric: Metric, runs: set[int]) -> dict:
    out = metric.as_dict()
    out.update(gold=metric.gold, distracted=metric.distracted, other=metric.other, invalid=metric.invalid,
               runs=sorted(r for r in runs if r))
    return out


def paper_tables(rows: list[dict]) -> dict[str, Table]:
    """The tables a report writes: agents x scenarios (the paper's overview), agents x patterns,
    and for each scenario agents x patterns (the paper's per-scenario Tables 3-6). Rows of several
    rule sets (key "rules") give each table once per rule set (suffix "_<rules>" after the first)
    and a table of the rule sets side by side."""
    rows = list(rows)
    rule_sets = list(dict.fromkeys(str(r.get("rules") or "") for r in rows)) or [""]
    tables: dict[str, Table] = {}
    if len(rule_sets) > 1:
        tables["by_rules"] = build_table(rows, ("agent", "pattern"), "rules",
                                         "Rule sets side by side, all samples (95% Wilson intervals)", with_all=False,
                                         column_order=rule_sets)
    for i, rules in enumerate(rule_sets):
        mine = [r for r in rows if str(r.get("rules") or "") == rules]
        suffix = f"_{rules}" if i else ""
        named = f" ({rules} rules)" if rules else ""
        tables[f"by_scenario{suffix}"] = build_table(
            mine, ("agent", "pattern"), "scenario", f"Results by scenario{named} (95% Wilson intervals)")
        tables[f"by_pattern{suffix}"] = build_table(
            mine, ("agent",), "pattern", f"Results by working pattern{named} (95% Wilson intervals)")
        for scenario in sorted({str(r.get("scenario", "") or "") for r in mine}):
            these = [r for r in mine if str(r.get("scenario", "") or "") == scenario]
            tables[f"scenario_{scenario or 'none'}{suffix}"] = build_table(
                these, ("agent",), "pattern", f"Scenario {scenario or '(none)'}: by working pattern{named}",
                with_all=False)
    return tables


def overall_table(rows: Iterable[dict], row_fields: tuple[str, ...] = ("agent", "pattern")) -> Table:
    """One column (ALL): a row's results over every sample."""
    table = build_table(rows, row_fields, "scenario", "Overall", with_all=True)
    keep = [ALL] if ALL in table.columns else table.columns
    cells = {k: v for k, v in table.cells.items() if k[1] in keep}
    if keep != [ALL]:  # a single scenario: call its only column ALL
        cells = {(r, ALL): v for (r, _), v in cells.items()}
    return Table(table.title, table.row_fields, table.column_field, table.rows, [ALL], cells)


def breakdown_table(rows: Iterable[dict], breakdown: str) -> Table:
    """What the dashboard shows for a breakdown: overall, scenario, pattern, class (of the target: rows from
    evaluation/target_class.with_target_class) or rules (side by side)."""
    if breakdown == "overall":
        return overall_table(rows)
    if breakdown == "class":
        return build_table(rows, ("agent", "pattern"), "class", "By class of the target")
    if breakdown == "pattern":
        return build_table(rows, ("agent",), "pattern", "By working pattern")
    if breakdown == "rules":
        order = list(dict.fromkeys(str(r.get("rules") or "") for r in rows))
        return build_table(rows, ("agent", "pattern"), "rules", "Rule sets side by side", with_all=False,
                           column_order=order)
    return build_table(rows, ("agent", "pattern"), "scenario", "By scenario")


# -- formatting -----------------------------------------------------------------------
def percent(value: float) -> str:
    return f"{100 * value:.1f}"


def cell_text(cell: dict | None, metric: str) -> str:
    """'45.0 [30.1, 60.9]': percent and its 95 % interval; "-" where no sample was scored."""
    if cell is None or not cell.get("n") or cell.get(metric) is None or cell.get(f"{metric}_ci95") is None:
        return NO_DATA
    lo, hi = cell[f"{metric}_ci95"]
    return f"{percent(cell[metric])} [{percent(lo)}, {percent(hi)}]"


def count_text(cell: dict | None, key: str) -> str:
    return NO_DATA if cell is None else str(cell.get(key, 0))


def header(table: Table) -> list[str]:
    names = [FIELD_TITLES.get(f, f.title()) for f in table.row_fields] + ["n"]
    for column in table.columns:
        names += [f"{column or '(none)'} {TITLES[k]}" for k in METRICS] + [f"{column or '(none)'} wrong format"]
    return names


def body(table: Table) -> list[list[str]]:
    """The table as text cells, in header() order (the dashboard's table view shows these)."""
    out = []
    for row in table.rows:
        line = [v or "(none)" for v in row] + [str(table.row_n(row))]
        for column in table.columns:
            cell = table.cell(row, column)
            line += [cell_text(cell, k) for k in METRICS] + [count_text(cell, "wrong_format")]
        out.append(line)
    return out


# -- writers -----------------------------------------------------------------------------
def to_csv(table: Table, path: Path | str) -> Path:
    path = Path(path)
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow([*table.row_fields, table.column_field, *CSV_VALUES])
        for row in table.rows:
            for column in table.columns:
                cell = table.cell(row, column)
                if cell is None:
                    continue
                values = [cell[k] for k in ("n", "errors", "excluded", "wrong_format", "both", "gold", "distracted",
                                            "other", "invalid")]
                for key in ("acc_gold", "acc_dist", "acc_other", "acc_inv"):  # no data: empty, never 0
                    ci = cell[f"{key}_ci95"]
                    values += [cell[key], *ci] if cell[key] is not None and ci is not None else ["", "", ""]
                values.append(";".join(str(r) for r in cell["runs"]))
                writer.writerow([*row, column, *values])
    return path


def read_csv(path: Path | str, title: str = "") -> Table:
    """A table written by to_csv, back: the fields before the column key are the row key."""
    with Path(path).open(newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        head = next(reader)
        n_keys = head.index("n")
        row_fields, column_field = tuple(head[:n_keys - 1]), head[n_keys - 1]
        table = Table(title, row_fields, column_field)
        for line in reader:
            if not line:
                continue
            values = dict(zip(head[n_keys:], line[n_keys:], strict=True))
            row, column = tuple(line[:n_keys - 1]), line[n_keys - 1]
            cell: dict = {k: int(values[k]) for k in ("n", "errors", "excluded", "wrong_format", "both", "gold",
                                                       "distracted", "other", "invalid")}
            for key in ("acc_gold", "acc_dist", "acc_other", "acc_inv"):
                empty = values[key] == ""
                cell[key] = None if empty else float(values[key])
                cell[f"{key}_ci95"] = None if empty else [float(values[f"{key}_lo"]), float(values[f"{key}_hi"])]
            cell["wrong_format_rate"] = round(cell["wrong_format"] / cell["n"], 6) if cell["n"] else None
            cell["runs"] = [int(r) for r in values["runs"].split(";") if r]
            table.cells[(row, column)] = cell
            if row not in table.rows:
                table.rows.append(row)
            if column not in table.columns:
                table.columns.append(column)
    return table


def _md_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def to_markdown(table: Table, path: Path | str | None = None) -> str:
    head = header(table)
    keys = len(table.row_fields)
    lines = []
    if table.title:
        lines += [f"**{_md_escape(table.title)}**", ""]
    lines.append("| " + " | ".join(_md_escape(h) for h in head) + " |")
    lines.append("|" + "|".join(":---" if i < keys else "---:" for i in range(len(head))) + "|")
    for line in body(table):
        lines.append("| " + " | ".join(_md_escape(c) for c in line) + " |")
    lines += ["", "Percent of scored samples; brackets: 95% Wilson interval; n: samples per row; "
                  f"{NO_DATA}: no scored sample."]
    text = "\n".join(lines) + "\n"
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"\textless{}", ">": r"\textgreater{}", "–": "--"}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def _latex_cell(cell: dict | None, metric: str) -> str:
    if cell is None or not cell.get("n") or cell.get(metric) is None or cell.get(f"{metric}_ci95") is None:
        return "--"
    lo, hi = cell[f"{metric}_ci95"]
    return f"{percent(cell[metric])}\\,{{\\scriptsize[{percent(lo)}, {percent(hi)}]}}"


def to_latex(table: Table, path: Path | str | None = None, label: str = "") -> str:
    """A booktabs table: a column group per scenario (\\cmidrule under its name), one column per metric."""
    keys = len(table.row_fields)
    k = len(METRICS)
    spec = "l" * keys + "r" + "".join(" " + "c" * k for _ in table.columns)
    lines = [r"% needs \usepackage{booktabs}", r"\begin{table}[t]", r"\centering", r"\small"]
    if table.title:
        lines.append(rf"\caption{{{latex_escape(table.title)}}}")
    if label:
        lines.append(rf"\label{{{latex_escape(label)}}}")
    lines += [rf"\begin{{tabular}}{{{spec}}}", r"\toprule"]
    groups = [rf"\multicolumn{{{k}}}{{c}}{{{latex_escape(c or '(none)')}}}" for c in table.columns]
    lines.append(" & " * keys + " & " + " & ".join(groups) + r" \\")
    first = keys + 2
    lines.append(" ".join(rf"\cmidrule(lr){{{first + k * i}-{first + k * i + k - 1}}}"
                          for i in range(len(table.columns))))
    names = [latex_escape(FIELD_TITLES.get(f, f.title())) for f in table.row_fields] + ["$n$"]
    metric_names = [rf"$\mathrm{{Acc}}_{{\mathrm{{{name}}}}}$" for name in ("gold", "dist", "other", "inv")]
    lines.append(" & ".join(names + metric_names * len(table.columns)) + r" \\")
    lines.append(r"\midrule")
    for row in table.rows:
        cells = [latex_escape(v or "(none)") for v in row] + [str(table.row_n(row))]
        for column in table.columns:
            cell = table.cell(row, column)
            cells += [_latex_cell(cell, k) for k in METRICS]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    text = "\n".join(lines) + "\n"
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text


WRITERS = {"csv": to_csv, "md": to_markdown, "tex": to_latex}


def write(table: Table, path: Path | str, fmt: str | None = None) -> Path:
    """Write in the format named by `fmt` or by the file's suffix (csv, md, tex)."""
    path = Path(path)
    fmt = (fmt or path.suffix.lstrip(".")).lower()
    fmt = {"markdown": "md", "latex": "tex"}.get(fmt, fmt)
    if fmt not in WRITERS:
        raise ValueError(f"unknown table format {fmt!r} (csv, md or tex)")
    WRITERS[fmt](table, path)
    return path
