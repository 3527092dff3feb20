"""Reading Parquet with our reader (formats/parquet_read.py, ADR 0028) against pyarrow, its peer, in one run.

    .venv/bin/python benchmarks/parquet_read.py [FILE.parquet ...] [--rows 600] [--runs 3]

Without files: a ScreenSpot-like file as the Hugging Face mirrors store it (instruction, bbox, an image struct of
bytes and path; Snappy), `--rows` rows of 150 KB incompressible "screenshots", written by pyarrow. With files:
those too (Parquet that others released). For each: the rows equal or not (pyarrow's `to_pylist()`), and the
median time to read every row as dicts, ours / pyarrow's, with the load average beside it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop_app.formats.parquet_read import ParquetFile  # noqa: E402


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


def ours(path: Path) -> list[dict]:
    with ParquetFile(path) as parquet:
        return [row for batch in parquet.iter_batches(batch_size=64) for row in batch]


def pyarrows(path: Path) -> list[dict]:
    import pyarrow.parquet as pq

    rows = []
    for batch in pq.ParquetFile(path).iter_batches(batch_size=64):  # as the formats read it before ADR 0028
        rows.extend(batch.to_pylist())
    return rows


def median_time(read, path: Path, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        read(path)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--rows", type=int, default=600)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for path in [screenspot_like(Path(folder), args.rows), *args.files]:
            same = ours(path) == pyarrows(path)
            mine, theirs = median_time(ours, path, args.runs), median_time(pyarrows, path, args.runs)
            print(f"{path.name} ({path.stat().st_size / 1e6:.1f} MB): rows {'equal' if same else 'DIFFER'}; ours "
                  f"{mine * 1000:.0f} ms, pyarrow {theirs * 1000:.0f} ms: {mine / theirs:.2f}x "
                  f"(medians of {args.runs}; load {os.getloadavg()[0]:.1f})", flush=True)


if __name__ == "__main__":
    main()
