"""The rows of a Parquet file for a format's reader, with what goes wrong said as a FormatError.

The Parquet formats (Multimodal-Mind2Web, ScreenSpot from Hugging Face) read through our own reader
(parquet_read.py) rather than pyarrow, which was 107 MB of the 350 MB installer for these two formats.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from desktop_app.formats.parquet_read import ParquetError, ParquetFile, TooLarge
from desktop_app.formats.records import FormatError, is_file

_ERRNO = re.compile(r"\[[Ee]rrno \d+\]\s*")


def open_parquet(file: Path, what_to_give: str = "give a .parquet file") -> ParquetFile:
    """The file opened (only its footer is read), or a FormatError saying why it cannot be."""
    if not is_file(file):  # a pipe would wait for a writer forever
        raise FormatError(f"not a regular file (a folder, a pipe or a device?); {what_to_give}", file)
    try:
        return ParquetFile(file)
    except (ParquetError, OSError) as exc:
        raise FormatError(f"cannot be read as Parquet ({_plain(exc)})", file) from None


def parquet_rows(parquet: ParquetFile, file: Path, batch: int, columns: list[str] | None = None) -> Iterator[dict]:
    """Every row as a dict of the columns asked for, `batch` rows decoded at a time; a FormatError naming the
    row where reading fails (a damaged page, text that is not UTF-8, a compression the reader lacks)."""
    batches, done = parquet.iter_batches(batch_size=batch, columns=columns), 0
    while True:
        try:
            rows = next(batches, None)
        except TooLarge as exc:  # said whole: the numbers are the point
            raise FormatError(f"at row {done} or after, {exc.reason}", file) from None
        except (ParquetError, OSError) as exc:
            raise FormatError(f"cannot read the Parquet file at row {done} or after ({_plain(exc)})", file) from None
        if rows is None:
            return
        yield from rows
        done += len(rows)


def _plain(exc: BaseException) -> str:
    """The error's words without an OSError's '[Errno 2]' (the file is named by the FormatError)."""
    text = " ".join(_ERRNO.sub("", str(exc)).split()) or type(exc).__name__
    return text if len(text) <= 300 else text[:300] + "..."
