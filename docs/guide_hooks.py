"""MkDocs hook for the user guide (mkdocs.yml): the screenshots stay where docs/make_*screenshots.py write them
(docs/*.png, also shown by the README), and a guide page names one as `img/NAME.png`. Each one named is added
to the build from docs/, so the built guide carries the pictures it shows and no others, and a picture that
does not exist is a broken link, which the strict build refuses."""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.structure.files import File

SCREENSHOTS = Path(__file__).resolve().parent  # docs/
NAMED = re.compile(r"\((?:\.\./)*img/([\w.-]+\.png)\)")


def on_files(files, config):
    named = set()
    for page in Path(config["docs_dir"]).rglob("*.md"):
        named.update(NAMED.findall(page.read_text(encoding="utf-8")))
    for name in sorted(named):
        picture = SCREENSHOTS / name
        if picture.is_file():  # a missing one is left out: the page's link to it then fails the strict build
            files.append(File.generated(config, f"img/{name}", abs_src_path=str(picture)))
    return files
