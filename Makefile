# Two commands on a fresh machine:  `make run` (the app on the demo project)
# and `make test` (the whole suite). Both create .venv and install what is needed.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: run test lint guide bench bench-quick bench-peers demo system-deps clean snapshots

# The packages go in with uv (pinned), which pip installs first: 24-43 s on a fresh machine where pip took 90 s
# (40 of them resolving), most of make test's lead on a fresh clone (ADR 0064). The same pins either way; where
# uv cannot be had or cannot reach the index (it reads no pip.conf), pip installs them as before. Bytecode written
# as pip does: with PYTHONDONTWRITEBYTECODE set, every process would compile the libraries again.
UV_VERSION := 0.13.9
$(BIN)/.installed: pyproject.toml packaging/shiboken_files.py
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11) and "ScreenLab needs Python >= 3.11 (set PYTHON=python3.11)")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check "uv==$(UV_VERSION)" \
	  && $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -e ".[dev]" \
	  || { echo "uv could not install the packages: pip installs them instead"; \
	       $(BIN)/pip install --quiet --disable-pip-version-check -e ".[dev]"; }
	@# PySide6's support modules as files with bytecode: not compiled again at each launch (ADR 0072)
	$(BIN)/python packaging/shiboken_files.py
	@touch $@

run: $(BIN)/.installed
	$(BIN)/screenlab

# Three workers on two cores (pytest-xdist): much of the suite waits on a browser, a server or a subprocess.
# A file's tests stay on one worker (its fixtures are built once); each worker has its own browser,
# QApplication and PostgreSQL server. 524-716 s of pytest in .ci/run on a fresh clone here, the machine otherwise
# idle, the release build beside it at nice 19, the machine's speed drifting by a third between hours (2026-11-30;
# issue 36 asks 8 minutes for the whole of make test; the venv is 43 s of it since ADR 0064, about 90 s before).
# The suite is CPU-bound (160-169 % of the two cores): docs/suite-durations.md.
# The slow files, each timed alone before and after issue 36's pass (thumbnail grid 249 -> 47 s, runner
# 227 -> 162 s, OCR suggestions 291 -> 84 s; at load 9-12): docs/suite-durations.md.
# compileall first: with PYTHONDONTWRITEBYTECODE set (as on the shared CI machine) every
# `python -m desktop_app` a test starts compiled the package again (kill_safety: 95 -> 78 s of CPU; 1 s to compile).
# --durations=25: every run (CI's too) ends with its 25 slowest tests, the list issue 36 asks to look at one by one.
# pytest runs with bytecode writing on (PYTHONDONTWRITEBYTECODE unset for it alone): pytest keeps the test modules it
# rewrote for its assertion messages only where Python may write bytecode, so each worker rewrote all of them again
# at every run, 8 s of each worker's 15 s collection (7 s with them kept). The first run writes them.
test: $(BIN)/.installed system-deps
	$(BIN)/python -m compileall -q desktop_app
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n 3 --dist loadfile --durations=25

# The golden images of the canvas and the main window (tests/test_gui_snapshots.py), taken again on purpose after
# a change of the layout that is meant: look at tests/data/snapshots/*.png before committing them.
snapshots: $(BIN)/.installed
	SCREENLAB_UPDATE_SNAPSHOTS=1 QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q tests/test_gui_snapshots.py

lint: $(BIN)/.installed
	$(BIN)/ruff check desktop_app tests benchmarks datasets docs packaging
	$(BIN)/python tests/layers.py

# The user guide (docs/guide/, mkdocs.yml; ADR 0032) into build/guide/, where Help > User guide finds it.
# --strict: a warning (a broken link, a missing picture, a docstring the API reference cannot read) fails it.
guide: $(BIN)/.installed
	$(BIN)/mkdocs build --strict --site-dir build/guide

# The peers the README's Measured table compares against (ADR 0053): labelme 5.8.1 in a venv of its own
# (benchmarks/peers.txt, pinned; never in ScreenLab's), and the tesseract command (a system package).
LABELME_VENV ?= /tmp/labelme-venv
$(LABELME_VENV)/bin/labelme: benchmarks/peers.txt
	$(PYTHON) -m venv $(LABELME_VENV)
	$(LABELME_VENV)/bin/pip install --quiet --disable-pip-version-check -r benchmarks/peers.txt
	@touch $@

bench-peers: $(LABELME_VENV)/bin/labelme
	@command -v tesseract >/dev/null || { echo "no tesseract command: apt install tesseract-ocr (the OCR rows' peer)"; exit 1; }

# The Measured table: benchmarks/table.py runs each of its benchmarks with its peer, prints the table and writes
# docs/measured.md and README.md's copy. bench-quick: the same at small sizes, in minutes, into build/.
bench-quick: $(BIN)/.installed bench-peers
	$(BIN)/python benchmarks/table.py --quick

bench: $(BIN)/.installed bench-peers
	$(BIN)/python benchmarks/table.py --readme
	$(BIN)/python benchmarks/import_scale.py
	$(BIN)/python benchmarks/synth.py
	$(BIN)/python benchmarks/ui_latency.py
	$(BIN)/python benchmarks/judge.py
	$(BIN)/python benchmarks/judge_labelling.py
	$(BIN)/python benchmarks/a11y_tree.py
	$(BIN)/python benchmarks/teams_postgres.py
	$(BIN)/python benchmarks/media_in_database.py
	$(BIN)/python benchmarks/ocr_memory.py
	$(BIN)/python benchmarks/vaf.py
	$(BIN)/python benchmarks/parquet_read.py
	$(BIN)/python benchmarks/thumbnail_grid.py

demo: $(BIN)/.installed
	$(BIN)/python datasets/build_demo.py
	$(BIN)/python datasets/build_navi_demo.py
	$(BIN)/python datasets/build_judge_demo.py
	$(BIN)/python datasets/build_sphinx_demo.py
	$(BIN)/python datasets/build_live_demo.py

# The suite drives a real Chromium and real Qt widgets (offscreen). As root on
# Debian/Ubuntu this installs what is missing; otherwise it says what to install.
system-deps:
	@sh .ci/system-deps.sh
