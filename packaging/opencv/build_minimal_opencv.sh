#!/usr/bin/env bash
# Build a minimal opencv-python-headless wheel (core, geometry, imgproc, imgcodecs with PNG only, the
# Python bindings; no ffmpeg/videoio, no GUI, no BLAS/LAPACK, no IPP, no OpenCL, no dnn) from the
# PyPI sdist of the version pinned in pyproject.toml, into a cache folder, unless it is already there.
#
#   packaging/opencv/build_minimal_opencv.sh            # prints the wheel's path on its last line
#
# Environment:
#   SCREENLAB_BUILD_CACHE  cache root (default ~/.cache/screenlab-build); the wheel goes to
#                          $SCREENLAB_BUILD_CACHE/opencv/<version>-<flags hash>/
#   PYTHON                 interpreter that builds the wheel (default python3.11): the wheel is for it
#   JOBS                   parallel compile jobs (default 2)
#   NICE                   niceness of the build (default 19)
#   OPENCV_VERSION         override the version read from pyproject.toml
#
# The wheel keeps the name opencv-python-headless and gets the version <pin>+min.<hash>: pip accepts it
# for the exact pin (==5.0.0.93 ignores the local label), and `pip list` shows which build is installed.
# See packaging/opencv/README.md for the flags and the measurements.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PYTHON="${PYTHON:-python3.11}"
JOBS="${JOBS:-2}"
NICE="${NICE:-19}"
CACHE_ROOT="${SCREENLAB_BUILD_CACHE:-$HOME/.cache/screenlab-build}"

VERSION="${OPENCV_VERSION:-$(sed -nE 's/^ *"opencv-python-headless==([^"]+)".*/\1/p' "$ROOT/pyproject.toml" | head -1)}"
[[ -n "$VERSION" ]] || { echo "build_minimal_opencv: no opencv-python-headless pin in $ROOT/pyproject.toml" >&2; exit 1; }

# One flag a line. CMAKE_ARGS has a lower precedence than the sdist's own setup.py arguments
# (BUILD_SHARED_LIBS=OFF, PYTHON3_LIMITED_API=ON, BUILD_OPENEXR=ON, ...), which are fine as they are.
# shellcheck disable=SC2054  # the commas belong to BUILD_LIST
FLAGS=(
  -DBUILD_LIST=core,geometry,imgproc,imgcodecs,python3   # imgproc needs geometry in OpenCV 5
  -DPYTHON3_LIMITED_API=ON                                # as the PyPI wheel (setup.py looks for it here)
  # video, GUI, cameras
  -DWITH_FFMPEG=OFF -DWITH_GSTREAMER=OFF -DWITH_V4L=OFF -DWITH_1394=OFF -DWITH_OBSENSOR=OFF
  -DWITH_GTK=OFF -DWITH_QT=OFF -DWITH_OPENGL=OFF -DWITH_VTK=OFF -DWITH_WAYLAND=OFF
  # acceleration: IPP (ippicv) is downloaded from GitHub at configure time, which our machines cannot reach;
  # LAPACK is OpenBLAS (39 MB) and nothing the app calls needs it
  -DWITH_IPP=OFF -DBUILD_IPP_IW=OFF -DWITH_LAPACK=OFF -DWITH_EIGEN=OFF -DWITH_OPENCL=OFF
  -DWITH_VA=OFF -DWITH_VA_INTEL=OFF -DWITH_CUDA=OFF -DWITH_TBB=OFF -DWITH_OPENMP=OFF
  -DWITH_ITT=OFF -DCV_TRACE=OFF -DWITH_PROTOBUF=OFF -DWITH_FLATBUFFERS=OFF -DWITH_OPENVINO=OFF
  # image codecs: PNG only (desktop_app/ocr/tess.py: imencode(".png")), libpng and zlib built in statically
  -DWITH_PNG=ON -DBUILD_PNG=ON -DBUILD_ZLIB=ON -DWITH_ZLIB_NG=OFF -DWITH_SPNG=OFF
  -DWITH_JPEG=OFF -DWITH_WEBP=OFF -DWITH_TIFF=OFF -DWITH_OPENJPEG=OFF -DWITH_JASPER=OFF
  -DWITH_OPENEXR=OFF -DWITH_AVIF=OFF -DWITH_JPEGXL=OFF -DWITH_GDCM=OFF -DWITH_GDAL=OFF
  -DWITH_IMGCODEC_GIF=OFF -DWITH_IMGCODEC_HDR=OFF -DWITH_IMGCODEC_SUNRASTER=OFF
  -DWITH_IMGCODEC_PXM=OFF -DWITH_IMGCODEC_PFM=OFF
  # the 'uni' font for putText is downloaded at configure time; Hershey fonts stay
  -DWITH_UNIFONT=OFF
  -DBUILD_TESTS=OFF -DBUILD_PERF_TESTS=OFF -DBUILD_EXAMPLES=OFF -DBUILD_DOCS=OFF -DBUILD_opencv_apps=OFF
  -DBUILD_JAVA=OFF -DBUILD_opencv_js=OFF
  -DCMAKE_MODULE_LINKER_FLAGS=-Wl,--strip-all            # cv2.abi3.so without symbols (as the PyPI one)
)
# CPU dispatch (SSE3 baseline, SSE4.1 ... AVX512 dispatched at run time) is OpenCV's default, as the PyPI wheel.

# The cache key: the version, the flags and RECIPE (bump it when the steps below change, e.g. the patch).
RECIPE=1
# shellcheck source=../wheel_cache.sh
source "$HERE/../wheel_cache.sh"
wheel_cache_folder opencv "$VERSION" "$RECIPE" "${FLAGS[@]}"
print_cached_wheel build_minimal_opencv "opencv_python_headless-*.whl"
HASH="${OUT##*-}"  # the flags hash, for the messages and the version label below

echo "build_minimal_opencv: building opencv-python-headless $VERSION (flags $HASH) with $PYTHON, -j$JOBS, nice $NICE"
echo "build_minimal_opencv: about 10 minutes on 2 idle cores (20 on a loaded machine); cached afterwards"
mkdir -p "$CACHE_ROOT/opencv/sdist" "$OUT"
SDIST="$CACHE_ROOT/opencv/sdist/opencv_python_headless-$VERSION.tar.gz"
if [[ ! -f "$SDIST" ]]; then
  echo "build_minimal_opencv: downloading the sdist (82 MB)"
  "$PYTHON" -m pip download --disable-pip-version-check --no-deps --no-binary opencv-python-headless \
    "opencv-python-headless==$VERSION" -d "$CACHE_ROOT/opencv/sdist"
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/screenlab-opencv.XXXXXX")"
[[ -n "${KEEP_WORK:-}" ]] || trap 'rm -rf "$WORK"' EXIT  # KEEP_WORK=1 keeps the build tree
echo "build_minimal_opencv: unpacking into $WORK"
tar -xzf "$SDIST" -C "$WORK"
SRC="$WORK/opencv_python_headless-$VERSION"
# local version label: the exact pin still matches, `pip list` tells this build from PyPI's
sed -i -E "s/^opencv_version = \"[^\"]+\"/opencv_version = \"$VERSION+min.$HASH\"/" "$SRC/cv2/version.py"
# OpenCV's typing-stub generator assumes the full module set: it refines Feature2D.detectAndCompute and
# aliases FeatureDetector = Feature2D (module features, not built here). It then fails (a warning only), makes
# no cv2/py.typed, *.pyi or cv2/typing/, and the sdist's setup.py stops with "Not found: 'python/cv2/py.typed'".
# Two small edits make it skip what this build lacks; the stubs then come out as in the PyPI wheel.
"$PYTHON" - "$SRC/opencv/modules/python/src2/typing_stubs_generation" <<'PY'
"""Let OpenCV's typing-stub generator skip what a build without some modules lacks."""
import sys
from pathlib import Path

gen = Path(sys.argv[1])  # .../modules/python/src2/typing_stubs_generation
edits = {
    "api_refinement.py": [
        ("from .ast_utils import (find_function_node,",
         "from .ast_utils import (ScopeNotFoundError, SymbolNotFoundError, find_function_node,"),
        ("        refine_symbol(root, symbol_name)\n",
         "        try:  # screenlab: a symbol of a module left out of this build\n"
         "            refine_symbol(root, symbol_name)\n"
         "        except (ScopeNotFoundError, SymbolNotFoundError):\n"
         "            pass\n"),
    ],
    "generation.py": [
        ("                              ConditionalAliasTypeNode, PrimitiveTypeNode)\n",
         "                              ConditionalAliasTypeNode, PrimitiveTypeNode,\n"
         "                              TypeResolutionError)\n"),
        ("            continue\n        node.resolve(root)\n",
         "            continue\n"
         "        try:  # screenlab: an alias of a class left out of this build (Feature2D...)\n"
         "            node.resolve(root)\n"
         "        except TypeResolutionError:\n"
         "            continue\n"),
    ],
}
for name, pairs in edits.items():
    path = gen / name
    text = path.read_text()
    for old, new in pairs:
        if text.count(old) != 1:
            sys.exit(f"cannot patch {path}: the OpenCV sources changed, check the patch")
        text = text.replace(old, new)
    path.write_text(text)
PY
echo "build_minimal_opencv: patched the typing-stub generator (skips symbols of modules not built)"

started=$(date +%s)
echo "build_minimal_opencv: pip wheel (log: $OUT/build.log)"
if ! ENABLE_HEADLESS=1 OPENCV_PYTHON_SKIP_GIT_COMMANDS=1 \
    CMAKE_ARGS="${FLAGS[*]}" SKBUILD_BUILD_OPTIONS="-j$JOBS" CMAKE_BUILD_PARALLEL_LEVEL="$JOBS" MAKEFLAGS="-j$JOBS" \
    nice -n "$NICE" "$PYTHON" -m pip wheel -v --disable-pip-version-check --no-deps --no-cache-dir -w "$WORK/dist" "$SRC" >"$OUT/build.log" 2>&1; then
  tail -40 "$OUT/build.log" >&2
  echo "build_minimal_opencv: FAILED after $(( $(date +%s) - started )) s (log: $OUT/build.log)" >&2
  exit 1
fi
keep_wheel build_minimal_opencv "$WORK/dist" "opencv_python_headless-*.whl" "$started" "${FLAGS[@]}"
