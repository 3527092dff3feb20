"""What a recording starts from, and how its pages reach the browser.

Three kinds of start, told apart by how they are written:

  flow:NAME[/SCREEN]   one of our flow sites (resources/flows/NAME.html.j2), served live: every screen is a
                       page at ORIGIN/site/NAME/SCREEN, rendered with the fields the previous page's form
                       posted (or the query string) as its state `s`
  a .html.j2 file      a flow site from a file of its own (a modified copy of one of ours), served the same
                       way under the file's name, so a recording made on the original replays on the copy
  a file or a folder   a saved page (its folder's index.html when a folder), served from its folder
  http(s)://...        a page on the web: only when the user names one, and only then does a request leave
                       this machine

Flow sites and saved pages come from the fake origin of render/renderer.py through request routing, with
every other request refused (and counted in `blocked`), as VAF's rendering does: nothing leaves the browser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from desktop_app.paths import resources_dir
from desktop_app.render.renderer import _TYPES, ORIGIN

FLOW_PREFIX = "flow:"
_SCREENS = re.compile(r"Screens:\s*\n\s*([a-z][a-z0-9_-]*)")


class SiteError(ValueError):
    """A start that cannot be opened: said in one line."""


@dataclass
class Site:
    location: str  # as the user wrote it, stored with the recording
    start_url: str
    online: bool = False  # a web page: requests go where the page sends them
    template: Path | None = None  # a flow site's template
    folder: Path | None = None  # a saved page's folder
    blocked: list[str] = field(default_factory=list)
    _env: object = None

    @property
    def flow_name(self) -> str:
        return self.template.name.removesuffix(".html.j2") if self.template else ""

    def serve(self, route) -> None:
        """The route handler: our origin is answered here, the rest refused (the web: let through)."""
        url = route.request.url
        if self.online:
            route.continue_()
            return
        if not url.startswith(ORIGIN + "/"):
            if not url.startswith("data:"):
                self.blocked.append(url)
            route.abort()
            return
        parts = urlsplit(url)
        path = unquote(parts.path.lstrip("/"))
        if self.template is not None and path.startswith(f"site/{self.flow_name}/"):
            screen = path.split("/", 2)[2] or self.first_screen()
            state = dict(parse_qsl(parts.query))
            if route.request.method == "POST":
                state.update(parse_qsl(route.request.post_data or ""))
            route.fulfill(status=200, content_type="text/html; charset=utf-8", body=self.render(screen, state))
            return
        roots = [self.folder] if self.folder is not None else []
        roots.append(resources_dir())  # a flow page's style sheets and fonts
        for root in roots:
            root = root.resolve()
            file = (root / path).resolve()
            if root in file.parents and file.is_file():
                kind = _TYPES.get(file.suffix.lower(), "application/octet-stream")
                route.fulfill(status=200, content_type=kind, body=file.read_bytes())
                return
        route.fulfill(status=404, body="not found")

    def environment(self):
        if self._env is None:
            import jinja2

            # the copy's own folder first, so `{% import "flows/_flow.html.j2" %}` still finds ours; missing state
            # is empty (a page opened without its form's fields), not an error
            self._env = jinja2.Environment(
                loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(self.template.parent),
                                            jinja2.FileSystemLoader(resources_dir())]),
                autoescape=True, undefined=jinja2.ChainableUndefined, trim_blocks=True, lstrip_blocks=True)
        return self._env

    def first_screen(self) -> str:
        found = _SCREENS.search(self.template.read_text(encoding="utf-8"))
        return found.group(1) if found else "index"

    def render(self, screen: str, state: dict) -> str:
        template = self.environment().get_template(self.template.name)
        return template.render(viewport="desktop", origin=ORIGIN, screen=screen, target="", s=state)


def flow_sites() -> list[str]:
    """The flow sites a recording can start on (flow:NAME)."""
    return sorted(p.name.removesuffix(".html.j2") for p in (resources_dir() / "flows").glob("*.html.j2")
                  if not p.name.startswith("_"))


def open_site(location: str) -> Site:
    """The Site a start names (see the module docstring); SiteError says what is wrong with it."""
    location = location.strip()
    if not location:
        raise SiteError("no start given: a URL, a saved page, or a flow site (flow:NAME)")
    if location.startswith(FLOW_PREFIX):
        name, _, screen = location[len(FLOW_PREFIX):].partition("/")
        template = resources_dir() / "flows" / f"{name}.html.j2"
        if not name or name.startswith("_") or not template.is_file():
            raise SiteError(f"no flow site named {name!r}; the flow sites are: {', '.join(flow_sites())}")
        site = Site(location, "", template=template)
        site.start_url = f"{ORIGIN}/site/{name}/{screen or site.first_screen()}"
        return site
    if re.match(r"^https?://", location, re.I):
        return Site(location, location, online=True)
    path = Path(location).expanduser()
    if path.name.endswith(".html.j2") and path.is_file():
        site = Site(location, "", template=path.resolve())
        site.start_url = f"{ORIGIN}/site/{site.flow_name}/{site.first_screen()}"
        return site
    if path.is_dir():
        page = path / "index.html"
        if not page.is_file():
            raise SiteError(f"{path}: a saved page's folder holds index.html; this one does not")
        return Site(location, f"{ORIGIN}/index.html", folder=path.resolve())
    if path.is_file():
        return Site(location, f"{ORIGIN}/{path.name}", folder=path.resolve().parent)
    raise SiteError(f"{location}: not a URL (http:// or https://), a saved page (a file or a folder) or a flow site "
                    f"(flow:NAME; one of {', '.join(flow_sites())})")
