"""PySide6's signature support modules as files with their bytecode, for a launch that does not compile them.

    python packaging/shiboken_files.py        (the Makefile runs it in .venv; the PyInstaller spec in build/venv)

shiboken6 keeps the Python modules behind its signatures and enum features (`shibokensupport`: a loader, a parser,
a type mapping, a .pyi generator) as source in a zip embedded in its library, and compiles them at each import of
PySide6: about 10 ms of every launch (ADR 0072). When a folder `files.dir` lies beside shiboken6's package it
imports them from there instead, as ordinary files whose bytecode Python caches; shiboken6 writes that folder
itself when started with SBK_EMBED=0 (its `signature_bootstrap.handle_embedding_switch`). This runs it so, then
compiles the files with unchecked-hash bytecode, which stays valid wherever the folder is copied (a bundle's files
get new times).

Prints the folder. A shiboken6 that no longer makes it is reported, and the launch simply stays as it was.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

FOLDER = "files.dir"  # shiboken6's name (signature_bootstrap.find_incarnated_files)


def unpack(python: str = sys.executable) -> Path:
    """The `files.dir` of `python`'s shiboken6, written again and compiled; raises RuntimeError if shiboken6 did
    not write it. Written again each time: a PySide6 upgraded in place leaves the folder its predecessor wrote
    (it is not among the package's recorded files), and its modules must be the library's own."""
    where = subprocess.run([python, "-c", "import pathlib, shiboken6; print(pathlib.Path(shiboken6.__file__)"
                                          ".resolve().parent)"], capture_output=True, text=True, check=True)
    folder = Path(where.stdout.strip()) / FOLDER
    shutil.rmtree(folder, ignore_errors=True)
    subprocess.run([python, "-c", "import shiboken6"], env={**os.environ, "SBK_EMBED": "0"}, check=True)
    if not (folder / "shibokensupport").is_dir():
        raise RuntimeError(f"shiboken6 did not write {folder} with SBK_EMBED=0: its support modules stay embedded")
    # in `python`'s own interpreter: the bytecode is for its version
    subprocess.run([python, "-c", "import compileall, py_compile, sys; sys.exit(not compileall.compile_dir("
                                  f"{str(folder)!r}, quiet=1, invalidation_mode=py_compile.PycInvalidationMode."
                                  "UNCHECKED_HASH))"], check=True)
    return folder


def main() -> int:
    try:
        print(unpack())
    except (RuntimeError, subprocess.CalledProcessError) as exc:
        print(f"shiboken_files: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
