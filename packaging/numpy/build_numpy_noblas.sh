#!/usr/bin/env bash
# Build a numpy wheel without BLAS/LAPACK (numpy's own lapack_lite instead of the 28 MB OpenBLAS + gfortran the
# PyPI wheel grafts in) from the PyPI sdist of the version pinned in pyproject.toml, into a cache folder, unless
# it is already there. Nothing the app runs does large matrix products (OCR's networks run in ONNX Runtime), so
# only the size changes: see packaging/numpy/README.md for what was compared.
#
#   packaging/numpy/build_numpy_noblas.sh            # prints the wheel's path on its last line
#
# Environment: SCREENLAB_BUILD_CACHE (default ~/.cache/screenlab-build; the wheel goes to
# $SCREENLAB_BUILD_CACHE/numpy/<version>-<flags hash>/), PYTHON (default python3.11: the wheel is for it),
# NICE (default 19), NUMPY_VERSION (override the pin).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PYTHON="${PYTHON:-python3.11}"
NICE="${NICE:-19}"

VERSION="${NUMPY_VERSION:-$(sed -nE 's/^ *"numpy==([^"]+)".*/\1/p' "$ROOT/pyproject.toml" | head -1)}"
[[ -n "$VERSION" ]] || { echo "build_numpy_noblas: no numpy pin in $ROOT/pyproject.toml" >&2; exit 1; }

# meson options of numpy's build (numpy's meson.options): no BLAS, no LAPACK, and say that is meant
FLAGS=(-Csetup-args=-Dblas=none -Csetup-args=-Dlapack=none -Csetup-args=-Dallow-noblas=true)
RECIPE=1  # bump when the steps below change
# shellcheck source=../wheel_cache.sh
source "$HERE/../wheel_cache.sh"
wheel_cache_folder numpy "$VERSION" "$RECIPE" "${FLAGS[@]}"
print_cached_wheel build_numpy_noblas "numpy-*.whl"

echo "build_numpy_noblas: building numpy $VERSION without BLAS with $PYTHON, nice $NICE (about 8 minutes here; cached afterwards)"
mkdir -p "$OUT"
started=$(date +%s)
WORK="$(mktemp -d "${TMPDIR:-/tmp}/screenlab-numpy.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
if ! nice -n "$NICE" "$PYTHON" -m pip wheel -v --disable-pip-version-check --no-deps --no-cache-dir \
    --no-binary numpy "numpy==$VERSION" -w "$WORK" "${FLAGS[@]}" >"$OUT/build.log" 2>&1; then
  tail -40 "$OUT/build.log" >&2
  echo "build_numpy_noblas: FAILED after $(( $(date +%s) - started )) s (log: $OUT/build.log)" >&2
  exit 1
fi
keep_wheel build_numpy_noblas "$WORK" "numpy-*.whl" "$started" "${FLAGS[@]}"
