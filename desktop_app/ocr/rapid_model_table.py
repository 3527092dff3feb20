"""rapidocr's table of downloadable models, read once and without the runtimes we do not run.

As it is imported, rapidocr 3.10 reads its `default_models.yaml` (83 KB: where each model of each runtime can be
downloaded, which languages each recogniser reads) into OmegaConf twice, once for each of two modules
(`inference_engine/base.py`, `utils/model_resolver.py`). Building OmegaConf's nodes is slow: 0.13 s a read on
this machine, of the import's 0.6 s, paid by every OCR process as it starts (the window's worker, again
after each idle exit; `screenlab ocr`).

Our engine opens its models by path (ocr/rapid.py), so the download table is never used to fetch anything;
what rapidocr reads of the file is the language routes and names, and the ONNX Runtime section (the recogniser's
character list, when a model has none of its own). So, for the one import, `OmegaConf.load` of that file gives:

- one config for both modules, made read-only (neither writes to it; a write would now raise, not go unseen);
- without the sections of the four runtimes we do not run (OpenVINO, MNN, Paddle, PyTorch), which nothing on our
  path reads.

Every other file is loaded by OmegaConf as before, and the patch is undone once the import is done.
`tests/test_ocr.py` checks that the kept sections equal OmegaConf's own reading of the file, and that
both modules got the one config.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

RUNTIMES_NOT_RUN = ("openvino", "mnn", "paddle", "torch")  # default_models.yaml's sections for other runtimes
# two threads importing rapidocr at once (the window asking which languages it reads while a read starts) would
# each replace OmegaConf.load, and the second would put back the first's replacement
_FIRST_IMPORT = threading.Lock()


def lean_table(path: Path):
    """The table at `path` as a read-only OmegaConf config, without RUNTIMES_NOT_RUN's sections."""
    import yaml
    from omegaconf import OmegaConf

    with open(path, encoding="utf-8") as fh:
        data = yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    for runtime in RUNTIMES_NOT_RUN:
        data.pop(runtime, None)
    config = OmegaConf.create(data)
    OmegaConf.set_readonly(config, True)
    return config


@contextlib.contextmanager
def table_read_once(package_dir: Path) -> Iterator[None]:
    """Within the block, OmegaConf.load of rapidocr's default_models.yaml gives one lean_table, made on first use."""
    from omegaconf import OmegaConf

    table = (package_dir / "default_models.yaml").resolve()
    original = OmegaConf.__dict__["load"]  # the staticmethod itself, put back as it was
    made = []

    def load(file_, *args, **kwargs):
        if isinstance(file_, (str, Path)) and Path(file_).resolve() == table:
            if not made:
                made.append(lean_table(table))
            return made[0]
        return original.__func__(file_, *args, **kwargs)

    OmegaConf.load = load
    try:
        yield
    finally:
        OmegaConf.load = original


def rapidocr_class(package_dir: Path):
    """rapidocr's RapidOCR class, imported (the first time) with its model table read once."""
    with _FIRST_IMPORT:
        if "rapidocr.main" not in sys.modules:
            with table_read_once(package_dir):
                import rapidocr.main  # noqa: F401  (what `from rapidocr import RapidOCR` imports)
    from rapidocr import RapidOCR

    return RapidOCR
