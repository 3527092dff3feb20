"""Where a page comes from, and what a study knows about it (its target, its items, the words the
browsing prompt uses).

A page is a saved HTML file (its folder serves its relative assets), a folder holding one page
(index.html, or its only .html file), or one of our demo pages (resources/vaf/pages, pages.json).
Whatever the source, it is rendered offline: relative URLs are answered from its folder, every other
request is aborted (render/renderer.py) and listed, so a study can say what the page tried to load.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from desktop_app.paths import resources_dir


class PageError(ValueError):
    pass


@dataclass(frozen=True)
class PageSpec:
    """A page and its target, stored with every variant of the study (episode.meta["vaf"]["page"])."""

    name: str  # the study's name: the scenario of its variants
    source: str  # "demo:<name>", or the path of the file / folder
    target: str  # CSS selector of the target item
    target_name: str = ""  # what the judge looks for in the agent's thoughts
    items: str = ""  # CSS selector of all items (default: the target's siblings of its tag)
    slots: dict = field(default_factory=dict)  # position family: banner / header / sidebar selectors
    category: str = "item"
    page_type: str = "page"
    item_singular: str = "item"
    item_plural: str = "items"
    fields: str = "name, price, rating"
    clickable: str = "item's title"
    title: str = ""
    scripts: bool = False  # run the page's own scripts (a saved page is a snapshot: off keeps it still)
    sha256: str = ""  # of the HTML file when the study was made: trials refuse a page changed since

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> PageSpec:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass(frozen=True)
class LoadedPage:
    html: str
    assets: Path  # the folder relative URLs are served from
    sha256: str = ""  # of the file's bytes


def demo_dir() -> Path:
    return resources_dir() / "vaf" / "pages"


def demo_pages() -> list[PageSpec]:
    """Our own demo pages in the shapes of the paper's five sites."""
    entries = json.loads((demo_dir() / "pages.json").read_text(encoding="utf-8"))
    return [PageSpec(name=e["name"], source=f"demo:{e['name']}", target=e["target"], target_name=e["target_name"],
                     items=e.get("items", ""), category=e["category"], page_type=e["page_type"],
                     item_singular=e["item_singular"], item_plural=e["item_plural"], fields=e["fields"],
                     clickable=e["clickable"], title=e.get("title", "")) for e in entries]


def demo_page(name: str) -> PageSpec:
    for spec in demo_pages():
        if spec.name == name:
            return spec
    raise PageError(f"no demo page {name!r} (one of {', '.join(p.name for p in demo_pages())})")


def page_file(source: str) -> Path:
    """The HTML file a source names."""
    if source.startswith("demo:"):
        return demo_dir() / f"{source[5:]}.html"
    path = Path(source)
    if path.is_dir():
        index = path / "index.html"
        if index.is_file():
            return index
        pages = sorted(path.glob("*.htm*"))
        if len(pages) != 1:
            raise PageError(f"{path}: a page folder holds index.html or exactly one .html file "
                            f"({len(pages)} found)")
        return pages[0]
    if not path.is_file():
        raise PageError(f"{path}: no such file or folder")
    if path.suffix.lower() not in (".html", ".htm", ".xhtml"):
        raise PageError(f"{path}: not an HTML page (.html or .htm)")
    return path


def load_page(source: str) -> LoadedPage:
    # imported here: the formats package is heavy to import when the window starts
    from desktop_app.formats.budget import MAX_DOCUMENT

    file = page_file(source)
    try:
        size = file.stat().st_size
        if size > MAX_DOCUMENT:  # kept whole and rendered: within the input budget's document size (ADR 0039)
            raise PageError(f"{file}: the page is {size:,} bytes; the limit for an HTML page is {MAX_DOCUMENT:,}")
        data = file.read_bytes()
    except OSError as exc:
        raise PageError(f"{file}: cannot read ({exc.strerror or exc})") from None
    if b"\x00" in data[:4096]:
        raise PageError(f"{file}: not a text file")
    return LoadedPage(_decode(data), file.parent, hashlib.sha256(data).hexdigest())


def _decode(data: bytes) -> str:
    """The page's text: UTF-8, else the charset its <meta> declares, else Windows-1252 (what browsers
    assume for an old page that says nothing)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    declared = re.search(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", data[:4096], re.I)
    for name in ([declared.group(1).decode("ascii")] if declared else []) + ["cp1252"]:
        try:
            return data.decode(name)
        except (LookupError, UnicodeDecodeError):
            continue
    return data.decode("utf-8", errors="replace")


def spec_for(source: str, target: str, name: str = "", **given) -> PageSpec:
    """A study's page: a demo page's own spec (target and words overridable), or a file or folder."""
    if source.startswith("demo:"):
        base = demo_page(source[5:]).to_json()
        base.update({k: v for k, v in given.items() if v})
        if target:
            base["target"] = target
        if name:
            base["name"] = name
        return PageSpec.from_json(base)
    file = page_file(source)  # refuses a missing or non-HTML source now
    if not target:
        raise PageError(f"{source}: give the target's CSS selector (or pick it in the page)")
    stem = file.parent.name if file.name == "index.html" else file.stem
    return PageSpec.from_json({"name": name or stem, "source": str(Path(source).resolve()), "target": target,
                               **{k: v for k, v in given.items() if v}})
