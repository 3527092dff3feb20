"""AndroidControl as Google distributes it: GZIP TFRecord shards, one tf.train.Example per episode, the
screenshots' PNG bytes inside. Import only.

Definition: google-research/google-research, android_control/README.md. Features of an episode:

    episode_id           int64  [1]       goal              bytes [1]  (UTF-8)
    screenshots          bytes  [N]       PNG files, one per observation
    screenshot_widths    int64  [N]       screenshot_heights  int64 [N]
    accessibility_trees  bytes  [N]       AndroidEnv AndroidAccessibilityForest protos (not read)
    actions              bytes  [N - 1]   each a JSON object as text, e.g. {"action_type":"click","x":561,"y":2011}
    step_instructions    bytes  [N - 1]   UTF-8

The framing is read by formats/tfrecord.py (both checksums checked), the Example by formats/tf_example.py; the
episode is then made exactly as from the converters' JSON (androidcontrol.episode_record): the same actions,
the same boxes in pixels, the widths and heights checked against each picture. The final screenshot (after the
last action) is not imported, as in the JSON import. Other features are not read.

What is read: a shard file (GZIP or plain; any name), or a folder of shards: the files whose names hold
"tfrecord" or follow the shard pattern NAME-00000-of-00020 (the release's android_control-000NN-of-00020).
The pictures of all episodes are held in memory until the import writes them: import a shard at a time.
"""

from __future__ import annotations

import os
import re
from itertools import islice
from pathlib import Path

from desktop_app.formats.androidcontrol import Screenshot, episode_record
from desktop_app.formats.records import EpisodeRecord, FormatError, Where
from desktop_app.formats.spec import FormatSpec
from desktop_app.formats.tf_example import parse as parse_example
from desktop_app.formats.tfrecord import looks_like_tfrecord
from desktop_app.formats.tfrecord import records as tfrecords

_SHARD = re.compile(r"tfrecord|-\d+-of-\d+", re.IGNORECASE)
_TEXT = ("goal", "step_instructions", "actions")
_NUMBERS = ("episode_id", "screenshot_widths", "screenshot_heights")
SCREENSHOTS = "screenshots"


def shard_files(path: Path) -> list[Path]:
    """The file itself, or a folder's shards (sorted); a clear error when there are none."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if _SHARD.search(p.name) and not p.name.startswith(".")
                       and not p.is_dir())
        if not files:
            raise FormatError("no TFRecord shards in this folder (files whose names hold 'tfrecord' or follow "
                              "NAME-00000-of-00020, as android_control-00000-of-00020)", path)
        return files
    if not path.exists():
        raise FormatError("file not found", path)
    return [path]


def _text(value: bytes, where: Where, field: str) -> str:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise where.error(f"not valid UTF-8 text (byte {exc.start + 1})", field) from None


def _fields(features: dict, where: Where, prefix: str) -> dict:
    """The features the episode is made of, as the converters' JSON holds them (text decoded, lists kept)."""
    fields = {}
    for name in (*_TEXT, *_NUMBERS):
        if name not in features:
            continue
        kind, values = features[name]
        want = "bytes" if name in _TEXT else "int64"
        if values and kind != want:
            raise where.error(f"expected a {want} list, got a {kind} list", prefix + name)
        fields[name] = [_text(v, where, f"{prefix}{name}[{i}]") for i, v in enumerate(values)] \
            if name in _TEXT else values
    return fields


def _episode(data: bytes, file: Path, number: int) -> EpisodeRecord:
    where = Where(file)
    prefix = f"record {number}."
    features = parse_example(data, where, f"record {number}")
    fields = _fields(features, where, prefix)
    if SCREENSHOTS not in features:
        raise where.error("missing (the PNG bytes of each screenshot)", prefix + SCREENSHOTS)
    kind, shots = features[SCREENSHOTS]
    if shots and kind != "bytes":
        raise where.error(f"expected a bytes list (PNG files), got a {kind} list", prefix + SCREENSHOTS)

    def screenshot(i: int) -> Screenshot:
        field = f"{prefix}{SCREENSHOTS}[{i}]"
        name = f"{file.name} record {number} screenshot {i}.png"
        return Screenshot(Path(name), name, field, bytes(shots[i]))

    return episode_record(fields, where, prefix, SCREENSHOTS, len(shots), screenshot)


def read(path: Path, options) -> list[EpisodeRecord]:
    records = []
    for file in shard_files(path):
        for number, data in tfrecords(file):
            records.append(_episode(data, file, number))
    if not records:
        raise FormatError("no episodes found (the TFRecord files hold no records)", path)
    return records


def sign(path: Path) -> str | None:
    """This format's name when the file opens with a TFRecord header whose checksum holds (the only TFRecords
    ScreenLab reads are AndroidControl's): a few bytes read."""
    return SPEC.name if looks_like_tfrecord(Path(path)) else None


def folder_sign(folder: Path, looked_at: int = 200) -> str | None:
    """This format's name when the first shard-named file among a folder's first entries is a TFRecord."""
    with os.scandir(folder) as entries:
        shards = sorted(e.name for e in islice(entries, looked_at)
                        if _SHARD.search(e.name) and not e.name.startswith(".") and e.is_file())
    return sign(Path(folder) / shards[0]) if shards else None


SPEC = FormatSpec(
    name="androidcontrol-tfrecord",
    description="AndroidControl as released: GZIP TFRecord shards of tf.train.Example episodes with the PNG "
                "screenshots inside (import only)",
    read=read,
)
