"""An agent's capability profile: one figure per capability, from its capability runs (Sphinx Figure 2).

A row is an agent seen in one observation mode (the paper reports text and vision apart). Its axes:
    goal, app        knowledge-probe accuracy by level (no screen: the agent's newest probe run, in every
                     one of its rows)
    planning         completion judgment, Perfect. (every step of a task judged right)
    grounding        grounding accuracy
    instructions     answers in the required format, over every answer of the row's capability runs,
                     focused-context prompts included (the complement of the format-error rate;
                     repetition needs a live device)
and beside them end-to-end SR and ACP from replay runs. When a row has several runs of one protocol the
newest counts. Each figure keeps its 95 % interval and its counts.
"""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from desktop_app.evaluation.metrics import wilson
from desktop_app.evaluation.tables import latex_escape

AXES = ("goal", "app", "planning", "grounding", "instructions")
AXIS_TITLES = {"goal": "Goal understanding", "app": "App knowledge", "planning": "Planning (Perfect.)",
               "grounding": "Grounding", "instructions": "Instruction following"}
PROTOCOLS = ("grounding", "completion", "replay", "focused")  # one row per agent and observation mode
PROBE = "probe"  # knowledge probes show no screen: an agent's newest probe run fills all its rows


@dataclass
class ProfileRow:
    agent: str
    observation: str
    axes: dict[str, dict | None] = field(default_factory=dict)  # axis -> {rate, ci95, hits, n} or None
    sr: dict | None = None
    acp: float | None = None
    acp_ci95: tuple[float, float] | None = None
    runs: dict[str, int] = field(default_factory=dict)  # protocol -> the run id used
    failure_modes: dict[str, int] = field(default_factory=dict)  # the paper's failure modes over those runs
    repaired: dict[str, dict | None] = field(default_factory=dict)  # axis -> the rate after the repair pass
    sr_by_length: dict[str, dict] = field(default_factory=dict)  # reference length bucket -> SR (replay)

    @property
    def label(self) -> str:
        return f"{self.agent} · {self.observation}"


def _cell(hits: int, n: int) -> dict | None:
    if not n:
        return None
    return {"hits": hits, "n": n, "rate": hits / n, "ci95": list(wilson(hits, n))}  # n > 0: an interval


def profiles(evaluated: dict) -> list[ProfileRow]:
    """Rows from `runs.evaluate.evaluate()`'s result (only its capability runs are read)."""
    newest: dict[tuple[str, str], dict[str, tuple[int, dict]]] = {}
    probes: dict[str, tuple[int, dict]] = {}
    for run_id, info in sorted(evaluated["runs"].items()):
        if info["protocol"] == PROBE and info.get("metrics", {}).get("questions"):
            probes[info["agent"]] = (run_id, info["metrics"])
            continue
        if info["protocol"] not in PROTOCOLS or not info.get("metrics"):
            continue
        key = (info["agent"], info["metrics"].get("observation", ""))
        newest.setdefault(key, {})[info["protocol"]] = (run_id, info["metrics"])
    for agent in probes:
        if not any(a == agent for a, _ in newest):
            newest[(agent, "-")] = {}
    rows = []
    for (agent, observation), by_protocol in sorted(newest.items()):
        row = ProfileRow(agent, observation, {axis: None for axis in AXES},
                         runs={p: run_id for p, (run_id, _) in by_protocol.items()})
        answered = in_format = 0
        if "grounding" in by_protocol:
            cell = by_protocol["grounding"][1]["rates"]["grounding"]
            row.axes["grounding"] = _cell(cell["hits"], cell["n"])
            answered += cell["n"]
            in_format += cell["n"] - cell["format_errors"]
        if "completion" in by_protocol:
            rates = by_protocol["completion"][1]["rates"]
            row.axes["planning"] = _cell(rates["perfect"]["hits"], rates["perfect"]["n"])
            for part in ("continue", "stop"):
                answered += rates[part]["n"]
                in_format += rates[part]["n"] - rates[part]["format_errors"]
        if "grounding" in by_protocol and "repaired" in by_protocol["grounding"][1]:
            cell = by_protocol["grounding"][1]["repaired"]["grounding"]
            row.repaired["grounding"] = _cell(cell["hits"], cell["n"])
        if "replay" in by_protocol:
            metrics = by_protocol["replay"][1]
            row.sr = metrics["rates"]["success"]
            row.sr_by_length = {k: v for k, v in metrics.get("sr_by_length", {}).items() if v["n"]}
            row.acp, row.acp_ci95 = metrics["acp"], metrics["acp_ci95"]
            errors = metrics["rates"]["format_error"]
            answered += errors["n"]
            in_format += errors["n"] - errors["hits"]
        if agent in probes:
            run_id, metrics = probes[agent]
            row.runs[PROBE] = run_id
            for level in ("goal", "app"):
                cell = metrics["rates"].get(level)
                if cell:
                    row.axes[level] = _cell(cell["hits"], cell["n"])
                    answered += cell["n"]
                    in_format += cell["n"] - cell["format_errors"]
                fixed = (metrics.get("repaired") or {}).get(level)
                if fixed:
                    row.repaired[level] = _cell(fixed["hits"], fixed["n"])
        if "focused" in by_protocol:
            failures = by_protocol["focused"][1]["rates"]["failure"]
            answered += failures["n"]
            in_format += failures["n"] - failures["hits"]
        row.axes["instructions"] = _cell(in_format, answered)
        modes: Counter = Counter()
        for _, metrics in [*by_protocol.values(), *([probes[agent]] if agent in probes else [])]:
            modes.update(metrics.get("failure_modes") or {})
        row.failure_modes = dict(modes.most_common())
        rows.append(row)
    return rows


def _percent(cell: dict | None) -> str:
    if cell is None or cell.get("ci95") is None:
        return "-"
    return f"{100 * cell['rate']:.1f} [{100 * cell['ci95'][0]:.1f}, {100 * cell['ci95'][1]:.1f}]"


def length_rows(rows: list[ProfileRow]) -> tuple[list[str], list[list[str]]]:
    """SR by the reference trajectory's length (replay runs), one column per length bucket: the paper's
    observation that longer tasks fail more, per agent and mode."""
    buckets = list(dict.fromkeys(k for row in rows for k in row.sr_by_length))
    header = ["Agent", "Observation", *(f"SR, {b} steps" for b in buckets)]
    body = [[row.agent, row.observation, *(_percent(_cell(row.sr_by_length[b]["hits"], row.sr_by_length[b]["n"]))
                                           if b in row.sr_by_length else "-" for b in buckets)]
            for row in rows if row.sr_by_length]
    return header, body


def _with_repair(cell: dict | None, repaired: dict | None) -> str:
    """Original -> Repaired, as the paper's Tables 6 and 8."""
    return _percent(cell) if repaired is None else f"{_percent(cell)} → {100 * repaired['rate']:.1f}"


def table_rows(rows: list[ProfileRow]) -> tuple[list[str], list[list[str]]]:
    """Header and cells as the window and the files show them (percentages with their intervals)."""
    header = ["Agent", "Observation", *(AXIS_TITLES[a] for a in AXES), "SR", "ACP", "Most frequent failures"]
    body = []
    for row in rows:
        acp = "-" if row.acp is None else f"{100 * row.acp:.1f}"
        if row.acp is not None and row.acp_ci95:
            acp += f" [{100 * row.acp_ci95[0]:.1f}, {100 * row.acp_ci95[1]:.1f}]"
        failures = ", ".join(f"{mode} {n}" for mode, n in list(row.failure_modes.items())[:3]) or "-"
        body.append([row.agent, row.observation, *(_with_repair(row.axes[a], row.repaired.get(a)) for a in AXES),
                     _percent(row.sr), acp, failures])
    return header, body


def write_csv(rows: list[ProfileRow], path: Path | str) -> Path:
    """Tidy: one line per row and figure, rates as 0-1 fractions with their interval and counts."""
    path = Path(path)
    with path.open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["agent", "observation", "figure", "rate", "lo", "hi", "hits", "n", "run"])
        for row in rows:
            figures = ([(a, row.axes[a]) for a in AXES] + [("sr", row.sr)]
                       + [(f"{a}_repaired", cell) for a, cell in row.repaired.items()]
                       + [(f"sr_{b}", _cell(c["hits"], c["n"])) for b, c in row.sr_by_length.items()])
            for name, cell in figures:
                if cell is not None:
                    base = "sr" if name.startswith("sr_") else name.removesuffix("_repaired")
                    run = row.runs.get({"planning": "completion", "grounding": "grounding", "sr": "replay",
                                        "goal": PROBE, "app": PROBE}.get(base, ""), "")
                    out.writerow([row.agent, row.observation, name, round(cell["rate"], 6),
                                  round(cell["ci95"][0], 6), round(cell["ci95"][1], 6), cell["hits"], cell["n"], run])
            if row.acp is not None:
                lo, hi = row.acp_ci95 or ("", "")
                out.writerow([row.agent, row.observation, "acp", round(row.acp, 6), lo, hi, "", "",
                              row.runs.get("replay", "")])
    return path


def write_latex(rows: list[ProfileRow], path: Path | str) -> Path:
    header, body = table_rows(rows)
    header, body = header[:-1], [cells[:-1] for cells in body]  # the failures are words, not a figure
    lines = ["\\begin{table}[t]", "\\centering", "\\small",
             "\\begin{tabular}{ll" + "r" * (len(header) - 2) + "}", "\\toprule",
             " & ".join(latex_escape(h) for h in header) + " \\\\", "\\midrule"]
    lines += [" & ".join(latex_escape(c) for c in cells) + " \\\\" for cells in body]
    lines += ["\\bottomrule", "\\end{tabular}",
              "\\caption{Capability profile (\\%, 95\\% intervals in brackets).}", "\\end{table}"]
    path = Path(path)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
