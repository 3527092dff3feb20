"""An import checks its pictures on every core (formats/image_lookahead.py): the same pictures accepted, the same
files refused with the same words, in the same order, as one file at a time; the decoding really happens on
other threads; and no thread is left behind, whether the import lands or is refused."""

import threading

import pytest

from desktop_app.formats.image_lookahead import PARALLEL_PIXELS, ImageLookahead
from desktop_app.formats.records import FormatError
from desktop_app.formats.transfer import import_path
from desktop_app.images import ImageProblem, inspect_file

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


def test_pictures_checked_ahead_come_out_as_checked_one_at_a_time(mixed_folder):
    limit = 6000 * 3000  # the 5000x4000 picture is over it, the 6000x3000 one just at it
    expected = [_outcome(lambda p: inspect_file(p, limit), path) for path in mixed_folder]
    assert [kind for kind, _ in expected].count("refused") == 5

    with ImageLookahead(limit, threads=2) as ahead:
        ahead.expect(mixed_folder)
        got = [_outcome(ahead.take, path) for path in mixed_folder]

    assert got == expected


def test_a_file_not_expected_is_left_to_the_importer_and_one_thread_checks_nothing_ahead(mixed_folder):
    with ImageLookahead(10**8, threads=2) as ahead:
        ahead.expect(mixed_folder[:3])
        assert ahead.take(mixed_folder[5]) is None  # not expected: the importer checks it itself
        assert ahead.take(mixed_folder[0]).width == 640
    with ImageLookahead(10**8, threads=1) as alone:
        alone.expect(mixed_folder)
        assert alone.take(mixed_folder[0]) is None


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
    assert names and all(name.startswith("image-check") for name in names)
    assert not _image_check_threads()


def test_a_refused_import_leaves_no_decoding_thread_behind(project, mixed_folder):
    with pytest.raises(FormatError, match="image files cannot be imported"):
        import_path(project, mixed_folder[0].parent, "images")
    assert not _image_check_threads()
