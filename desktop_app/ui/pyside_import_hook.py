"""PySide6's import hook, answering the same question for less: does this module's source mention PySide6?

PySide6 watches every module imported after it (shibokensupport/feature.py, `feature_imported`): a module whose
source says "PySide6" may switch its optional features (`from __feature__ import snake_case`), so it notes
which do. It finds out with `inspect.getsource(module)`, which goes through linecache: the file is opened with
tokenize to find its encoding, split into a list of lines and joined again, for each of the ~540 modules the
window imports before its first screen is painted: 0.14 s of CPU of every launch (ADR 0060). Reading the file's
bytes and looking for b"PySide6" gives the same answer (a source file's encoding is ASCII-compatible, PEP 263)
in a third of the time. Anything but a readable .py file (a built-in, a .pyc-only or frozen module) is still
asked the original way.

Private PySide6 API: if a later PySide6 names or shapes it differently, nothing is replaced and the launch is
as before (slower, not broken).
"""

from __future__ import annotations

import sys


def use_cheaper_source_check() -> bool:
    """Replace PySide6's per-import source check; True if it was there to replace. Idempotent."""
    import PySide6  # noqa: F401  (it installs the hook this replaces)

    feature = sys.modules.get("shibokensupport.feature")
    original = getattr(feature, "_mod_uses_pyside", None)
    if not callable(original):
        return False
    if getattr(original, "screenlab_cheaper", False):
        return True

    def mod_uses_pyside(module) -> bool:
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path.endswith(".py"):
            try:
                with open(path, "rb") as source:
                    return b"PySide6" in source.read()
            except OSError:
                pass
        return original(module)

    mod_uses_pyside.screenlab_cheaper = True
    mod_uses_pyside.original = original  # tests/test_startup.py compares the two answers
    feature._mod_uses_pyside = mod_uses_pyside
    return True
