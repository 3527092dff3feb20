"""File > Open Screenshots Folder… mid-import, into docs/open-folder.png (the guide names it img/open-folder.png) (ADR 0025):

the window at 1366x768, a folder of 400 screenshots opened, 17 of them in, the rest listed greyed ("… importing"),
the first screen labelled meanwhile.

    .venv/bin/python docs/make_open_folder_screenshot.py
    xvfb-run -s "-screen 0 1366x768x24" .venv/bin/python docs/make_open_folder_screenshot.py   # real X server

The folder and its project are made in temporary folders; nothing of yours is touched.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

if not os.environ.get("DISPLAY"):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["SCREENLAB_CONFIG_DIR"] = tempfile.mkdtemp()  # never save into the user's settings
os.environ["SCREENLAB_DATA_DIR"] = tempfile.mkdtemp()  # the folder's project is made under it
DOCS = Path(__file__).resolve().parent
sys.path[:0] = [str(DOCS.parent)]

from PIL import Image, ImageDraw  # noqa: E402
from shots import settle  # noqa: E402

from desktop_app.formats.folder_open import folder_project  # noqa: E402
from desktop_app.settings import Settings  # noqa: E402
from desktop_app.store.media import file_lock  # noqa: E402
from desktop_app.ui.app import application  # noqa: E402
from desktop_app.ui.main_window import MainWindow  # noqa: E402
from desktop_app.ui.tasks import wait_all  # noqa: E402
from desktop_app.ui.theme import apply_theme  # noqa: E402

COUNT, IN_WHEN_SHOT = 400, 17


def screenshots(folder: Path) -> Path:
    """A folder of made-up search pages: a title bar, a search box, result lines, one button each."""
    folder.mkdir(parents=True)
    for i in range(1, COUNT + 1):
        page = Image.new("RGB", (1280, 800), (246, 247, 249))
        draw = ImageDraw.Draw(page)
        draw.rectangle((0, 0, 1280, 56), fill=((i * 53) % 200, (i * 97) % 200, 150))
        draw.rectangle((240, 90, 1040, 134), outline=(150, 150, 160), width=2, fill="white")
        for line in range(6):
            y = 180 + line * 90
            draw.rectangle((240, y, 240 + 300 + (i * 37 + line * 91) % 500, y + 18), fill=(60, 90, 200))
            draw.rectangle((240, y + 30, 1040 - (i * 13 + line * 47) % 300, y + 42), fill=(170, 170, 178))
        draw.rectangle((1060, 90, 1180, 134), fill=(30, 130, 70))
        page.save(folder / f"screen-{i:04d}.png", compress_level=1)
    return folder


def main() -> None:
    app = application()
    apply_theme(app, "light")
    folder = screenshots(Path(tempfile.mkdtemp()) / "search-pages")
    window = MainWindow(Settings(annotator="ann", show_suggestions=False))
    window.resize(1366, 768)
    window.show()
    settle(20)
    window.projects.folders.open(folder)
    while window.browser is None or window.browser.model.stored_rows < IN_WHEN_SHOT:
        settle(1)
    with file_lock(folder_project(folder) / "media" / "LOCK"):  # the next batch waits: the window mid-import
        settle(20)
        window.browser.select_row(0)
        window.ws.add_boxes([{"x1": 1060, "y1": 90, "x2": 1180, "y2": 134, "label": "gold"}])
        window.view.fit()
        settle(30)
        out = DOCS / "open-folder.png"
        if not window.grab().save(str(out)):
            raise SystemExit(f"could not write {out}")
        print(f"wrote {out} ({window.browser.model.stored_rows} in, {window.browser.model.rowCount()} listed)")
        window.projects.folders.cancel()
    settle(20)
    wait_all()
    window.close()


if __name__ == "__main__":
    main()
