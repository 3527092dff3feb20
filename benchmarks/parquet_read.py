"""Reading Parquet with our reader (formats/parquet_read.py, ADR 0028) against pyarrow, its peer, in one run.

    .venv/bin/python benchmarks/parquet_read.py [FILE.parquet ...] [--rows 600] [--runs 3]

Without files: a ScreenSpot-like file as the Hugging Face mirrors store it (instruction, bbox, an image struct of
bytes and path; Snappy), `--rows` rows of 150 KB incompressible "screenshots", and two text-heavy files, where
the page codec does most of the work: a Mind2Web-like one (cleaned HTML of a few thousand words per row, the
task, a list of action strings) and one of chat messages (a list of role/content structs per row, as the
instruction-following sets store them), each written once with Snappy and once with ZSTD. All written by pyarrow.
With files: those too (Parquet that others released). For each: the rows equal or not (pyarrow's
`to_pylist()`), and the median time to read every row as dicts, ours / pyarrow's, with the load average beside
it. A file our reader refuses (a codec it does not read) is reported as such.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop_app.formats.parquet_read import ParquetError, ParquetFile  # noqa: E402


def screenspot_like(folder: Path, rows: int) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = folder / f"screenspot-like-{rows}.parquet"
    table = pa.table({
        "file_name": [f"pc_{i}.png" for i in range(rows)],
        "bbox": [[0.1 + i % 7 / 10, 0.2, 0.3 + i % 7 / 10, 0.4] for i in range(rows)],
        "instruction": [f"open the settings of item {i}" for i in range(rows)],
        "data_type": ["icon" if i % 2 else "text" for i in range(rows)],
        "image": [{"bytes": os.urandom(150_000), "path": None} for _ in range(rows)],
    })
    pq.write_table(table, path, compression="snappy", row_group_size=100)
    return path


_WORDS = ["the", "of", "and", "to", "in", "is", "for", "on", "with", "that", "by", "this", "from", "at", "are",
    "as", "be", "or", "an", "it", "was", "your", "can", "all", "more", "new", "search", "cart", "sign",
    "account", "price", "order", "button", "menu", "home", "page", "settings", "help", "item", "results",
    "shipping", "review", "rating", "filter", "sort", "size", "color", "quantity", "checkout", "delivery",
    "store", "open", "close", "submit", "cancel"]


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def _html(rng: random.Random, nodes: int) -> str:
    tags = ("div", "span", "a", "button", "li", "input", "label", "p")
    return "".join(f'<{t} backend_node_id="{rng.randrange(100000)}" class="c{rng.randrange(40)}">'
                   f"{_text(rng, rng.randrange(1, 12))}</{t}>" for t in (rng.choice(tags) for _ in range(nodes)))


def text_heavy(folder: Path, rows: int, compression: str) -> list[Path]:
    """The Mind2Web-like and chat files (see the module's docstring), `rows` // 3 and `rows` * 3 rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = random.Random(7)
    mind2web = folder / f"mind2web-like-{compression}.parquet"
    count = max(1, rows // 3)
    pq.write_table(pa.table({
        "annotation_id": [f"{rng.getrandbits(64):016x}" for _ in range(count)],
        "confirmed_task": [_text(rng, 14) for _ in range(count)],
        "cleaned_html": [_html(rng, 300) for _ in range(count)],
        "action_reprs": [[f"[button] {_text(rng, 3)} -> CLICK" for _ in range(rng.randrange(2, 9))]
                         for _ in range(count)],
    }), mind2web, compression=compression, use_dictionary=["annotation_id"])
    chat = folder / f"chat-like-{compression}.parquet"
    count = rows * 3
    pq.write_table(pa.table({
        "key": list(range(count)),
        "prompt": [_text(rng, rng.randrange(20, 200)) for _ in range(count)],
        "messages": [[{"role": "user", "content": _text(rng, rng.randrange(20, 200))},
                      {"role": "assistant", "content": _text(rng, rng.randrange(50, 300))}] for _ in range(count)],
    }), chat, compression=compression)
    return [mind2web, chat]


def ours(path: Path) -> list[dict]:
    with ParquetFile(path) as parquet:
        return [row for batch in parquet.iter_batches(batch_size=64) for row in batch]


def pyarrows(path: Path) -> list[dict]:
    import pyarrow.parquet as pq

    rows = []
    for batch in pq.ParquetFile(path).iter_batches(batch_size=64):  # as the formats read it before ADR 0028
        rows.extend(batch.to_pylist())
    return rows


def median_times(path: Path, runs: int) -> tuple[float, float]:
    """Medians of ours and pyarrow's times, the two read in turn: on a busy machine a burst of load then
    slows both, not whichever happened to be running."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(runs):
        for read, spent in zip((ours, pyarrows), times, strict=True):
            started = time.perf_counter()
            read(path)
            spent.append(time.perf_counter() - started)
    return statistics.median(times[0]), statistics.median(times[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--rows", type=int, default=600)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        made = [screenspot_like(Path(folder), args.rows)]
        for compression in ("snappy", "zstd"):
            made += text_heavy(Path(folder), args.rows, compression)
        for path in [*made, *args.files]:
            try:
                same = ours(path) == pyarrows(path)
            except ParquetError as exc:
                print(f"{path.name} ({path.stat().st_size / 1e6:.1f} MB): ours refuses it: {exc}", flush=True)
                continue
            mine, theirs = median_times(path, args.runs)
            print(f"{path.name} ({path.stat().st_size / 1e6:.1f} MB): rows {'equal' if same else 'DIFFER'}; ours "
                  f"{mine * 1000:.0f} ms, pyarrow {theirs * 1000:.0f} ms: {mine / theirs:.2f}x "
                  f"(medians of {args.runs}; load {os.getloadavg()[0]:.1f})", flush=True)


if __name__ == "__main__":
    main()
