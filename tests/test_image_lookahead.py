"""An import checks its pictures on every core (formats/image_lookahead.py): the same pictures accepted, the same
files refused with the same words, in the same order, as one file at a time; the decoding really happens on
other threads; and no thread is left behind, whether the import lands or is refused."""

import threading

import pytest

from desktop_app.formats.image_lookahead import PARALLEL_PIXELS, ImageLookahead, decoding_threads
from desktop_app.formats.records import FormatError, StepRecord
from desktop_app.formats.transfer import import_path
from desktop_app.images import ImageProblem, inspect_bytes, inspect_file

from conftest import make_image


def _outcome(check, path):
    try:
        info = check(path)
    except ImageProblem as problem:
        return "refused", str(problem)
    return "accepted", (info.sha256, info.ext, info.width, info.height, len(info.data))


@pytest.fixture(scope="module")
def mixed_folder(tmp_path_factory):
    """Good screenshots with bad ones between them, and one picture too big to be decoded off the importer's
    thread (over PARALLEL_PIXELS)."""
    root = tmp_path_factory.mktemp("mixed")
    files = []
    for i in range(12):
        files.append(make_image(root / f"good{i:02}.png", size=(640 + i, 400), color=(i * 20, 40, 90)))
        if i == 3:
            half = make_image(root / "half.png", size=(500, 300), color=None)
            half.write_bytes(half.read_bytes()[:len(half.read_bytes()) // 2])
            files.append(half)
        if i == 5:
            (root / "notes.png").write_bytes(b"these are my notes, saved with the wrong name")
            (root / "empty.png").write_bytes(b"")
            files += [root / "notes.png", root / "empty.png", root / "missing.png"]
        if i == 8:
            files.append(make_image(root / "huge.png", size=(6000, 3000), color="white"))
            files.append(make_image(root / "over-the-limit.png", size=(5000, 4000), color="white"))
    assert PARALLEL_PIXELS < 6000 * 3000
    return files


def _files(paths):
    return [StepRecord(image=path) for path in paths]


def _bytes(paths):
    """The same pictures as bytes a reader took out of a bigger file (a Parquet row, a labelme JSON)."""
    return [StepRecord(image=path, image_bytes=path.read_bytes() if path.exists() else b"") for path in paths]


def test_pictures_checked_ahead_come_out_as_checked_one_at_a_time(mixed_folder):
    limit = 6000 * 3000  # the 5000x4000 picture is over it, the 6000x3000 one just at it
    expected = [_outcome(lambda p: inspect_file(p, limit), path) for path in mixed_folder]
    assert [kind for kind, _ in expected].count("refused") == 5
    from_bytes = [_outcome(lambda s: inspect_bytes(s.image_bytes, limit, s.image), step) for step in _bytes(mixed_folder)]

    def importer(ahead):  # as ingest asks: what was not decoded ahead (empty bytes are one object) it checks itself
        return lambda step: ahead.take(step) or inspect_bytes(step.image_bytes, limit, step.image)

    for steps, one_at_a_time in ((_files(mixed_folder), expected), (_bytes(mixed_folder), from_bytes)):
        with ImageLookahead(limit, threads=2) as ahead:
            ahead.expect(steps)
            assert [_outcome(importer(ahead), step) for step in steps] == one_at_a_time


def test_a_picture_not_expected_is_left_to_the_importer_and_without_threads_nothing_is_checked_ahead(mixed_folder):
    steps = _files(mixed_folder)
    with ImageLookahead(10**8, threads=2) as ahead:
        ahead.expect(steps[:3])
        assert ahead.take(steps[5]) is None  # not expected: the importer checks it itself
        assert ahead.take(steps[0]).width == 640
        ahead.expect(steps[1:2] * 2)  # a file named twice is decoded once, and given once
        assert ahead.take(steps[1]).width == 641
        assert ahead.take(steps[1]) is None
    with ImageLookahead(10**8, threads=0) as alone:  # one core: nothing is decoded ahead
        alone.expect(steps)
        assert alone.take(steps[0]) is None


def _checks_by_thread(work):
    """The names of the threads that decoded pictures while `work` ran (a profile hook: nothing is replaced)."""
    names = set()

    def watch(frame, event, _arg):
        if event == "call" and frame.f_code.co_name == "decode_checked":
            names.add(threading.current_thread().name)

    threading.setprofile(watch)
    try:
        return work(), names
    finally:
        threading.setprofile(None)


def _image_check_threads():
    return [t for t in threading.enumerate() if t.name.startswith("image-check")]


def test_an_import_decodes_on_other_threads_and_leaves_none_behind(project, tmp_path):
    folder = tmp_path / "shots"
    for i in range(8):
        make_image(folder / f"shot{i}.png", size=(800, 500), color=(i * 30, 10, 10))

    report, names = _checks_by_thread(lambda: import_path(project, folder, "images"))

    assert report.episodes == 8 and report.screens_new == 8
    if decoding_threads():  # a machine with more than one core
        assert names and all(name.startswith("image-check") for name in names)
    else:  # one core: the importer decodes each picture itself, as before
        assert names == set()
    assert not _image_check_threads()


def test_a_refused_import_leaves_no_decoding_thread_behind(project, mixed_folder):
    with pytest.raises(FormatError, match="image files cannot be imported"):
        import_path(project, mixed_folder[0].parent, "images")
    assert not _image_check_threads()


def test_background_work_leaves_the_window_a_core():
    import os

    from desktop_app.formats.image_lookahead import MAX_THREADS
    from desktop_app.priority import background_priority

    cores = len(os.sched_getaffinity(0))
    found = []

    def in_the_background():  # as the window's import of a folder runs
        found.append(background_priority())
        found.append(decoding_threads())

    worker = threading.Thread(target=in_the_background)
    worker.start()
    worker.join()
    assert decoding_threads() == (min(cores, MAX_THREADS) if cores > 1 else 0)
    if found[0]:  # a sandbox may refuse the priority
        assert found[1] == (min(cores - 1, MAX_THREADS) if cores > 1 else 0)
