"""One source of truth for keys (issue 33): every message, tooltip, docstring and guide line that names a key
says what ui/shortcuts.py binds it to.

The scan reads the string literals of desktop_app/ (docstrings, messages, f-strings; comments are not read),
README.md and the guide (docs/guide/**/*.md) and finds keys where a text names one:

- a label with its key, "Accept (Y)", "Keyboard shortcuts (F1)": the words before it are what the key does;
- a key and what it does, "Y accept", "E to edit", "A / D previous / next", "Ctrl+S save";
- a row of the guide's key tables: "| A / D | previous / next screen |";
- any key with a modifier ("Ctrl+Shift+V", "**Ctrl+Enter** marks..."), "press W", "(F1)": the key must be
  bound to something where the text is.

A key and what it does must match an action of the table bound to that key, by a word of its description
(or its id): "A accept" fails, A moves to the previous screen. Where a text is decides which of the table's
parts apply: the main window's actions everywhere, a tool window's or a page's own keys in its source files
and in guide paragraphs that name it (shortcuts.SCOPES).
"""

from __future__ import annotations

import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

from desktop_app.ui import shortcuts

ROOT = Path(__file__).resolve().parents[1]
MODIFIED = r"(?:(?:Ctrl|Shift|Alt|Meta)\+)+(?:[A-Z0-9]\b|F\d{1,2}\b|Return|Enter|Esc|Tab|Backspace|Del|Space|Home|End" \
           r"|PgUp|PgDown|PgDn|Left|Right|Up|Down|arrows|click|drag|\+|-|=|\\)"
PLAIN = r"(?:[A-Z0-9]|F\d{1,2}|Return|Enter|Esc|Tab|Backspace|Del|Space|Home|End|PgUp|PgDown|PgDn|Left|Right|Up|Down" \
        r"|←|→)"
KEY = rf"(?:{MODIFIED}|{PLAIN})"
# what a key is said to do, right after it ("Y accept", "Ctrl+S save"): a verb of this list
VERBS = ("accept", "accepts", "reject", "rejects", "edit", "edits", "regenerate", "save", "saves", "undo", "redo",
         "next", "previous", "move", "moves", "draw", "delete", "duplicate", "copy", "paste", "snap", "skip", "open",
         "opens", "close", "closes", "zoom", "fit", "label", "labels", "keep", "keeps", "select",
         "stop", "stops", "clear", "clears", "filter", "show", "shows", "outcome", "step", "run", "new", "apply",
         "search", "pan", "pans", "leave", "leaves", "mark", "marks", "reopen", "return", "returns", "restore",
         "restores", "dismiss", "dismisses", "commit", "commits")
# (a capital A or I opening a sentence is a word, "A new setting", and a digit a count, "0 edits lost": neither
# is read as a key here; the digit keys are read in the key tables and in labels)
KEY_AND_VERB = re.compile(rf"(?<![\w+\-.'])(?<!^)(?<!\. )(?<!\n)(?<!\[)(?<!\")"
                          rf"((?!\d\s)(?:{KEY})(?:\s*/\s*(?:{KEY}))*)\s+(?:to\s+)?((?:{'|'.join(VERBS)})\b"
                          r"(?:\s*(?:/|\band\b)\s*[a-z][\w-]*)*)", re.M)
# (a digit in brackets numbers a list item: "a dual-point action (4)")
LABELLED = re.compile(rf"((?:[A-Z][\w'-]*|[a-z][\w'-]*)(?:[ .…]+[\w'-]+){{0,3}}[.…]*)\s\(((?!\d\)){KEY})\)")
# keys listed in brackets, "(A / R, N / P)": each must be bound to something where the text is (a slash
# among them: "(0, 0)" and "(W, H)" are sizes and points)
KEY_LIST = re.compile(rf"\(((?=[^)]*\s/\s)(?:{KEY})(?:\s*[,/]\s*(?:{KEY}))+)\)")
PRESS = re.compile(rf"\b[Pp]ress(?:es|ing)?\s+({KEY})\b")
ANY_MODIFIED = re.compile(rf"(?<![\w+\-]){MODIFIED}")
STOP = {"the", "and", "with", "from", "this", "that", "its", "your", "for", "then", "or", "to", "a", "an", "of",
        "on", "in", "it", "is", "one", "all", "as", "by", "at"}
# words that say the same as an action's description
SAME = {"move": {"prev", "next", "move"}, "skip": {"skip", "next", "prev"}, "open": {"open", "show", "view"},
        "pan": {"pan", "move"}, "leave": {"leav", "back"}, "take": {"take", "first", "seco"},
        "keep": {"keep"}, "outcome": {"outc"}, "step": {"step"}}


@dataclass(frozen=True)
class Claim:
    where: str  # file:line
    text: str  # the words around it, for the failure message
    keys: tuple[str, ...]
    does: str  # what the text says the keys do ("" when it only names them)
    scopes: frozenset[str]


def words(text: str) -> set[str]:
    """Significant words cut to four letters: "edited" and "edits" meet as "edit"."""
    return {w[:4] for w in re.findall(r"[a-z][a-z0-9]*", text.lower()) if w not in STOP and len(w) > 1}


def key_variants(key: str) -> set[str]:
    """A key as texts write it, in the table's spelling (Enter is Return, PgDn PgDown, ← Left)."""
    key = key.replace("PgDn", "PgDown").replace("←", "Left").replace("→", "Right")
    if key.endswith("arrows"):
        head = key[: -len("arrows")]
        return {head + arrow for arrow in ("Left", "Right", "Up", "Down")}
    out = {key}
    if key.endswith("Enter"):
        out.add(key[: -len("Enter")] + "Return")
    if key.endswith("Return"):
        out.add(key[: -len("Return")] + "Enter")
    return out


def bound(scopes: frozenset[str]) -> dict[str, list]:
    """Key (lower case) -> the actions bound to it in these parts of the table."""
    out: dict[str, list] = {}
    for spec in shortcuts.ALL_KEYS:
        if shortcuts.scope_of(spec) in scopes:
            for key in spec.keys:
                out.setdefault(key.lower(), []).append(spec)
    return out


def problem(claim: Claim) -> str | None:
    table = bound(claim.scopes)
    for key in claim.keys:
        variants = key_variants(key)
        specs = [s for v in variants for s in table.get(v.lower(), [])]
        if not specs:
            return f"{key} is bound to nothing here ({', '.join(sorted(claim.scopes))})"
        if claim.does:
            said = words(claim.does)
            said |= {w for word in said for w in SAME.get(word, ())}
            meant = [words(s.text) | words(s.id.replace(".", " ").replace("_", " ")) for s in specs]
            if not any(said & m for m in meant):
                return f"{key} does not {claim.does!r} here: it is {' / '.join(s.text for s in specs)}"
    return None


def claims_in(text: str, where: str, scopes: frozenset[str]) -> list[Claim]:
    found: list[Claim] = []
    taken: list[tuple[int, int]] = []

    def add(match, keys, does):
        found.append(Claim(where, text.strip()[:160], tuple(keys), does, scopes))
        taken.append(match.span())

    for m in KEY_AND_VERB.finditer(text):
        keys = re.split(r"\s*/\s*", m.group(1))
        verbs = re.split(r"\s*(?:/|\band\b)\s*", m.group(2))
        if len(verbs) == len(keys):
            for key, verb in zip(keys, verbs, strict=True):
                add(m, [key], verb)
        else:
            add(m, keys, verbs[0])
    for m in LABELLED.finditer(text):
        add(m, [m.group(2)], m.group(1))
    for m in PRESS.finditer(text):
        add(m, [m.group(1)], "")
    for m in KEY_LIST.finditer(text):
        add(m, re.split(r"\s*[,/]\s*", m.group(1)), "")
    for m in ANY_MODIFIED.finditer(text):
        if not any(a <= m.start() < b for a, b in taken):
            add(m, [m.group(0)], "")
    return found


def table_rows(line: str, where: str, scopes: frozenset[str]) -> list[Claim]:
    """A guide table row "| keys | what they do |": keys and meanings paired by their separators."""
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) < 2 or set(cells[0]) <= {"-", " ", ":"} or cells[0] == "key":
        return []
    keys_cell = re.sub(r",?\s*then\b.*|\s*\+\s*drag.*", "", cells[0])
    groups = [g for g in re.split(r"\s*(?:/|,)\s*", keys_cell) if g]
    meanings = [g.strip() for g in re.split(r"\s*(?:/|,|;)\s*", re.sub(r"\([^)]*\)", "", cells[1])) if g.strip()]
    claims = []
    for i, group in enumerate(groups):
        keys = [k for k in re.split(r"\s+or\s+", group) if re.fullmatch(KEY, k)]
        if not keys:
            continue
        does = meanings[i] if len(meanings) >= len(groups) else ""
        claims.append(Claim(where, line.strip()[:160], tuple(keys), does, scopes))
    unread = [g for g in groups if not any(re.fullmatch(KEY, k) for k in re.split(r"\s+or\s+", g))]
    assert not [g for g in unread if re.match(r"(Ctrl|Shift|Alt|Meta)\+", g)], \
        f"{where}: cannot read the keys {unread} (write them as Ctrl++)"
    return claims + claims_in(" | ".join(cells[1:]), where, scopes)  # keys named in what they do


NOT_A_KEY = "# not a key"  # on a string's line: data that looks like a key ("close (X)", a synonym list)


def source_strings(path: Path):
    """(line, text) of every string literal in a Python file, but those on a line marked NOT_A_KEY."""
    lines = path.read_text(encoding="utf-8").splitlines()
    with path.open("rb") as f:
        for token in tokenize.tokenize(f.readline):
            literal = token.type in (tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", -1))
            if literal and not any(NOT_A_KEY in lines[n - 1] for n in range(token.start[0], token.end[0] + 1)):
                yield token.start[0], token.string


def code_claims() -> list[Claim]:
    out = []
    for path in sorted((ROOT / "desktop_app").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative == "desktop_app/ui/shortcuts.py":
            continue  # the table itself
        scopes = shortcuts.scopes_for_source(relative)
        for line, text in source_strings(path):
            out += claims_in(text, f"{relative}:{line}", scopes)
    return out


def doc_claims() -> list[Claim]:
    out = []
    pages = [ROOT / "README.md", *sorted((ROOT / "docs" / "guide").rglob("*.md"))]
    for page in pages:
        relative = page.relative_to(ROOT).as_posix()
        lines = page.read_text(encoding="utf-8").splitlines()
        start = 0
        for i, line in enumerate([*lines, ""]):
            if line.strip() and i != len(lines):
                continue
            paragraph = lines[start:i]  # a paragraph, a table or a code block: its scope is what it names
            scopes = shortcuts.scopes_for_text(" ".join(paragraph).replace("`", ""))
            # a key table: "| key | does |" (other tables are read as text)
            key_table = bool(paragraph) and re.match(r"\|\s*keys?\s*\|", paragraph[0].strip(), re.I) is not None
            for n, text in enumerate(paragraph, start=start + 1):
                where = f"{relative}:{n}"
                if key_table:
                    out += table_rows(text, where, scopes)  # the row's keys, read as a row
                    continue
                # "**Y** accept" reads "Y accept"; inline code is a command or a name, not a key
                out += claims_in(re.sub(r"`[^`]*`", "", text.replace("**", "")), where, scopes)
            start = i + 1
    return out


def test_the_scan_finds_what_it_should():
    """The scanner itself: a wrong key is caught, right ones pass, whatever form they are written in."""
    main = shortcuts.scopes_for_text("")
    wrong = [c for c in claims_in("Verify them in the Verify tab (A accept, R reject).", "x", main) if problem(c)]
    assert [c.keys for c in wrong] == [("A",), ("R",)]
    right = claims_in("Accept (Y) · Reject… (N) · A / D previous / next · E to edit, Ctrl+Enter to re-render · "
                      "press W · Keyboard shortcuts (F1)", "x", main)
    assert len(right) >= 8 and not [problem(c) for c in right if problem(c)]
    assert problem(Claim("x", "", ("Ctrl+Shift+Q",), "", main)) is not None
    tooltip = claims_in("Accept or reject each variant (A / R, N / P)", "x", main)
    assert [problem(c) for c in tooltip] == ["P is bound to nothing here (Canvas, main window)"]
    row = table_rows("| Ctrl+D, Del, Ctrl+C / Ctrl+V | duplicate, delete, copy / paste (also to another screen) |",
                     "x", main)
    assert [(c.keys, c.does) for c in row] == [(("Ctrl+D",), "duplicate"), (("Del",), "delete"),
                                               (("Ctrl+C",), "copy"), (("Ctrl+V",), "paste")]
    assert not [problem(c) for c in row if problem(c)]


@pytest.mark.parametrize("found", [code_claims, doc_claims], ids=["desktop_app strings", "README and guide"])
def test_every_key_named_is_the_key_the_table_binds(found):
    claims = found()
    assert len(claims) > 20  # the scan reads what it should
    wrong = [f"{c.where}: {problem(c)}\n    {c.text}" for c in claims if problem(c)]
    assert not wrong, "\n".join(wrong)
