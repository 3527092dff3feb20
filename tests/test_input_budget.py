"""The one input budget (formats/budget.py, ADR 0039): every decoder refuses a decompression bomb or an oversized
text with one line naming the file (and the field), before the memory is taken, and the project stays as it was.

Peak memory is measured with tracemalloc around the import (numpy, zlib and cramjam's buffers are Python
allocations, so they count). Each bomb would decode to far more than the bound asserted: before the budget,
these imports held hundreds of megabytes (or were accepted)."""

from __future__ import annotations

import gzip
import struct
import tracemalloc
from pathlib import Path

import bombs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop_app.formats import budget
from desktop_app.formats.budget import MAX_TEXT, Budget, OverBudget, decoded_limit, longest_text
from desktop_app.formats.parquet_read import ParquetError, ParquetFile, TooLarge
from desktop_app.formats.records import FormatError, JsonLines
from desktop_app.formats.tfrecord import frame, masked_crc, records
from desktop_app.formats.transfer import import_path
from desktop_app.vaf.pages import PageError, load_page

from conftest import snapshot

MB = 1 << 20


def _refused_within(project, bomb, peak_mb: float) -> str:
    """Imports the bomb: refused with its words, the project unchanged, at most `peak_mb` MB allocated."""
    before = snapshot(project)
    tracemalloc.start()
    try:
        with pytest.raises(FormatError) as caught:
            import_path(project, bomb.path, bomb.fmt)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = str(caught.value)
    assert "\n" not in message
    for word in bomb.words:
        assert word in message, message
    assert snapshot(project) == before, "a refused import changed the project"
    assert peak < peak_mb * MB, f"{bomb.name}: {peak / MB:.0f} MB allocated (would decode to {bomb.decodes_to / MB:,.0f} MB)"
    return message


# ------------------------------------------------------------------------------------------------ the numbers

def test_the_limits_are_stated_once_and_grow_with_the_file():
    assert decoded_limit(0) == budget.ALLOWANCE
    assert decoded_limit(10 * MB) == budget.EXPANSION * 10 * MB + budget.ALLOWANCE
    assert decoded_limit(10**12) == budget.MAX_DECODED
    assert budget.MAX_PIXELS == 100_000_000  # the images' own limit, listed with the rest
    spent = Budget(1000, expansion=2, allowance=100)
    spent.take(2000, "a page")
    with pytest.raises(OverBudget, match=r"more than 2,100 bytes \(page 2 would bring it to 2,200 bytes\)"):
        spent.take(200, "page 2")
    assert spent.used == 2000  # a refused piece is not spent
    with pytest.raises(OverBudget, match="the limit for one piece held whole is 10 bytes"):
        Budget(10**9, record=10).take(11, "a record")


def test_the_longest_text_is_found_and_named_by_its_path():
    value = {"goal": "ok", "meta": {"steps": [{"note": "n" * (MAX_TEXT + 1)}]}}
    assert longest_text(value) == f"meta.steps[0].note is {MAX_TEXT + 1:,} characters; the limit is {MAX_TEXT:,}"
    assert longest_text({"k" * 11: 1}, limit=10).startswith("a key in an object is 11 characters")
    assert longest_text(["x" * 10, ("y" * 10,)], limit=10) is None


# ------------------------------------------------------------------------------------------------ Parquet

@pytest.mark.parametrize("codec, style, on_disk", [
    ("gzip", "big", 300_000),  # 18 pages of 16 MB zeros: 290 MB
    ("zstd", "big", 60_000),  # pages of 16 MB from a few hundred bytes each: gigabytes
])
def test_parquet_page_bombs_are_refused_before_they_are_inflated(project, tmp_path, codec, style, on_disk):
    page = {"count": 200_000} if style == "many" else {}
    bomb = bombs.screenspot_parquet(tmp_path / f"{codec}.parquet", codec, style, on_disk, **page)
    assert bomb.decodes_to > 250 * MB
    message = _refused_within(project, bomb, 80)
    assert "decodes to more than" in message and "decompression bomb" in message


def test_parquet_pages_of_many_small_values_are_counted_as_held(tmp_path):
    # 200,000 two-byte values a page: 6 bytes each on the page, 43 held (a bytes object and its list slot);
    # read with the budget scaled down (the import with the default one is the benchmark's: tracemalloc makes
    # a million objects slow)
    bomb = bombs.screenspot_parquet(tmp_path / "snappy.parquet", "snappy", "many", 400_000, count=200_000)
    assert bomb.decodes_to > 50 * MB
    small = Budget(bomb.on_disk, expansion=4, allowance=4 * MB)

    def read():
        with ParquetFile(bomb.path) as f, pytest.raises(TooLarge, match=r"column 'bbox', row group 0: it decodes "
                                                                        r"to more than [\d,]+ bytes \(the page "
                                                                        r"holding values 0 to 200,000 would"):
            list(f.iter_batches(64, None, small))

    assert _peak(read) < 12 * MB


def test_a_parquet_page_claiming_past_one_piece_is_refused_by_its_header(tmp_path):
    # a page whose header claims 200 MB from one ZSTD frame: refused before a buffer is made for it
    bomb = bombs.screenspot_parquet(tmp_path / "claim.parquet", "zstd", "big", 1000, value_size=1000,
                                    claim_extra=200 * MB)
    tracemalloc.start()
    try:
        with ParquetFile(bomb.path) as f, pytest.raises(TooLarge, match="is 200 MB once decoded"):
            list(f.iter_batches(10))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5 * MB


def test_a_real_parquet_file_reads_within_its_budget(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "text.parquet"
    words = [f"instruction number {i} " * 20 for i in range(20_000)]  # text compresses well: about 30x in GZIP
    pq.write_table(pa.table({"text": words}), path, compression="gzip")
    assert path.stat().st_size * budget.EXPANSION < sum(map(len, words))  # more than 16x its size decoded...
    with ParquetFile(path) as f:
        got = [row["text"] for batch in f.iter_batches(5000) for row in batch]
    assert got == words  # ...yet within the allowance: a real file is never refused


# ------------------------------------------------------------------------------------------------ TFRecord

def test_a_gzip_tfrecord_claiming_a_huge_record_is_refused_before_it_is_read(project, tmp_path):
    # 200 MB of zeros really follow the header: read whole, they were held whole
    bomb = bombs.tfrecord_claim(tmp_path / "ep.tfrecord.gz", True, 2**31 - 2, 200 * MB)
    message = _refused_within(project, bomb, 5)
    assert "record 1: the record is 2,048 MB once decoded; the limit for one piece held whole is 128 MB" in message


def test_a_plain_tfrecord_claiming_more_than_the_file_holds_is_cut_short_at_once(project, tmp_path):
    bomb = bombs.tfrecord_claim(tmp_path / "ep.tfrecord", False, 2**31 - 2)
    message = _refused_within(project, bomb, 1)
    assert "(60 of 2,147,483,646 bytes)" in message


def test_gzip_tfrecord_records_past_the_file_s_budget_are_refused(tmp_path):
    bomb = bombs.tfrecord_many(tmp_path / "many.tfrecord.gz", 4 * MB, 40)  # 160 MB from 160 KB
    seen = 0
    with pytest.raises(FormatError, match=r"many.tfrecord.gz: record 9: it decodes to more than 35 MB"):
        for _number, _data in records(bomb.path):
            seen += 1
    assert seen == 8  # 8 records of 4 MB fit the 32 MB allowance and 16 x 160 KB; the 9th does not


def test_a_data_checksum_is_checked_on_a_record_read_in_chunks(tmp_path):
    data = bytes(range(256)) * 10_000  # 2.5 MB: read a megabyte at a time
    path = tmp_path / "big.tfrecord"
    framed = bytearray(frame(data))
    path.write_bytes(bytes(framed))
    assert [d for _, d in records(path)] == [data]
    framed[2_000_000] ^= 1
    path.write_bytes(gzip.compress(bytes(framed)))
    with pytest.raises(FormatError, match="record 1: the checksum of the record's data does not match"):
        list(records(path))


# ------------------------------------------------------------------------------------------------ JSON Lines

def test_a_gzip_jsonl_is_refused_at_its_first_line(project, tmp_path):
    bomb = bombs.gzip_jsonl(tmp_path / "gz", 200 * MB)  # no importer reads GZIP JSON
    _refused_within(project, bomb, 2)


def test_a_long_goal_is_refused_by_field(project, tmp_path):
    bomb = bombs.long_jsonl_line(tmp_path / "long", MAX_TEXT + 1)
    message = _refused_within(project, bomb, 20)
    assert f"line 1, field 'goal': the text is {MAX_TEXT + 1:,} characters; the limit is {MAX_TEXT:,}" in message


def test_a_line_longer_than_one_record_is_refused_without_holding_it(tmp_path):
    path = tmp_path / "one-line.jsonl"
    with open(path, "wb") as fh:
        fh.write(b"{}\n")
        fh.truncate(200 * MB)  # a second line of zero bytes
    assert JsonLines(path).max_line == budget.MAX_RECORD
    lines = JsonLines(path, max_line=MB)  # the budget's one-record limit, scaled down

    def read():
        with pytest.raises(FormatError, match=r"one-line.jsonl, line 2: the line is longer than 1,048,576 bytes"):
            list(lines)

    assert _peak(read) < 3 * MB  # the line up to the limit, never the rest


# ------------------------------------------------------------------------------------------------ XML

def test_a_cvat_attribute_of_20_million_characters_is_refused_as_it_is_parsed(project, tmp_path):
    bomb = bombs.cvat_attribute(tmp_path / "cvat", 20_000_000)
    message = _refused_within(project, bomb, 12)
    assert ("annotations.xml, line 6, field 'box.attribute': attribute \"x\" of a box of image \"shot.png\" is "
            f"more than {MAX_TEXT:,} characters; the limit is {MAX_TEXT:,}") in message


def test_a_cvat_tag_of_20_million_characters_is_refused_before_expat_holds_it(project, tmp_path):
    bomb = bombs.cvat_attribute(tmp_path / "cvat", 20_000_000, "value")
    message = _refused_within(project, bomb, 12)
    assert "a tag or comment goes on for more than 1,000,000 characters" in message


def test_cvat_entities_are_refused(project, tmp_path):
    _refused_within(project, bombs.cvat_entities(tmp_path / "laughs"), 5)


def test_a_sphinx_node_text_past_the_limit_is_refused_by_file_line_and_field(project, tmp_path):
    bomb = bombs.sphinx_text_node(tmp_path / "sphinx", MAX_TEXT + 1)
    message = _refused_within(project, bomb, 20)
    assert f"1.xml, line 4, field 'text': node 1's text is {MAX_TEXT + 1:,} characters" in message


def test_a_sphinx_dump_past_the_document_size_is_refused_unread(project, tmp_path):
    bomb = bombs.sphinx_text_node(tmp_path / "sphinx", budget.MAX_DOCUMENT + 1, sparse=True)
    message = _refused_within(project, bomb, 1)
    assert f"the accessibility-tree dump is {budget.MAX_DOCUMENT + 1:,} bytes" in message


def test_an_html_page_past_the_document_size_is_refused_unread(tmp_path):
    page = tmp_path / "page.html"
    with open(page, "wb") as fh:
        fh.truncate(budget.MAX_DOCUMENT + 1)
    with pytest.raises(PageError, match=r"page.html: the page is 33,554,433 bytes; the limit for an HTML page"):
        load_page(str(page))


# ------------------------------------------------------------------------------------------------ fuzz

_SMALL = {"expansion": 4, "allowance": 2 * MB, "record": 1 * MB}  # a budget small enough to hit quickly


def _peak(read) -> int:
    tracemalloc.start()
    try:
        read()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(codec=st.sampled_from(sorted(bombs.PARQUET_CODECS)), style=st.sampled_from(["big", "many"]),
       value_size=st.integers(1, 3 * MB), count=st.integers(1, 300_000), on_disk=st.integers(1, 200_000),
       claim=st.sampled_from([0, 0, -3, 7, 1 << 22, 2**31 - 2 - 3 * MB]))
def test_fuzz_parquet_pages_of_any_size_and_claim_stay_within_a_small_budget(tmp_path, codec, style, value_size,
                                                                             count, on_disk, claim):
    bomb = bombs.screenspot_parquet(tmp_path / "f.parquet", codec, style, on_disk, claim_extra=claim,
                                    value_size=value_size, count=count)
    small = Budget(bomb.on_disk, **_SMALL)

    def read():
        try:
            with ParquetFile(bomb.path) as f:
                for _ in f.iter_batches(64, ["bbox"], small):
                    pass
        except ParquetError:
            pass

    # what the budget lets through, plus one page's compressed bytes and the chunk read from disk
    assert _peak(read) < small.limit * 2 + 3 * bomb.on_disk + 4 * MB


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(compressed=st.booleans(), lengths=st.lists(st.integers(0, 3 * MB), min_size=1, max_size=6),
       lie=st.sampled_from([0, 1, 5 * MB, 2**31 - 2, 2**40]), zeros=st.integers(0, 6 * MB))
def test_fuzz_tfrecord_lengths_and_claims_stay_within_a_small_budget(tmp_path, compressed, lengths, lie, zeros):
    body = b"".join(frame(bytes(n)) for n in lengths)
    if lie:  # a last record claiming `lie` bytes (its length checksum right), then zeros that are there
        length = struct.pack("<Q", lie)
        body += length + masked_crc(length).to_bytes(4, "little")
        body += bytes(zeros)
    path = tmp_path / "f.tfrecord"
    path.write_bytes(gzip.compress(body, 1) if compressed else body)
    small = Budget(path.stat().st_size, **_SMALL)

    def read():
        try:
            for _ in records(path, small):
                pass
        except FormatError:
            pass

    assert _peak(read) < small.limit + 2 * small.record + 2 * path.stat().st_size + MB


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chars=st.integers(MAX_TEXT - 2, MAX_TEXT + 3 * MB), where=st.sampled_from(["text", "value"]))
def test_fuzz_cvat_texts_around_the_limit(tmp_path, chars, where):
    from desktop_app.formats import cvat_images

    bomb = bombs.cvat_attribute(tmp_path / f"c{chars}{where}", chars, where)
    outcome = []

    def read():
        try:
            outcome.append(cvat_images._Reader(bomb.path, bomb.path.parent, None).read())
        except FormatError as exc:
            outcome.append(str(exc))

    assert _peak(read) < 12 * MB
    if chars <= MAX_TEXT and where == "value":
        assert isinstance(outcome[0], list) and len(outcome[0]) == 1  # read: the limit itself is allowed
    elif chars <= MAX_TEXT:  # read, then refused by a box attribute's own (smaller) limit
        assert "attribute x: the value must be text of at most 2000 characters" in outcome[0]
    else:
        assert "the limit" in outcome[0] and "annotations.xml" in outcome[0]


def test_the_fuzz_helpers_build_what_they_say(tmp_path):
    path = bombs.tfrecord_many(tmp_path / "two.tfrecord.gz", 10, 2).path
    assert [d for _, d in records(path)] == [bytes(10)] * 2
    assert Path(path).stat().st_size < 200
