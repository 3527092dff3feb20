#!/usr/bin/env bash
# Build the Linux one-folder bundle and dist/ScreenLab-<version>-linux-x86_64.tar.gz from a checkout (its
# checksum in dist/SHA256SUMS; packaging/build_deb.sh then makes the .deb from the same bundle).
#
#   packaging/build_linux.sh            # then: packaging/smoke_test.sh
#
# Makes its own build environment (build/venv: `pip install .[docs] pyinstaller==6.22.3`, by the checkout's uv when
# .venv has it: ADR 0064), so the bundle holds exactly the pinned runtime dependencies, not the developer's .venv
# (MkDocs, the docs extra, builds the user guide; the app never imports it, so it is not bundled).
# Environment: PYTHON (default python3.11; needs its shared libpython, as pyenv/Debian/python.org
# builds have), KEEP_BUILD_VENV=1 reuses build/venv, NO_STRIP=1 skips stripping, MINIMAL_OPENCV=1
# ships OpenCV built with only what the app uses, NUMPY_NOBLAS=1 numpy without OpenBLAS, RELEASE=1 both (the
# release build, which CI makes: the two wheels come from ~/.cache/screenlab-build, built there once, about 18
# minutes on 2 idle cores; packaging/opencv/README.md, packaging/numpy/README.md; without them, PyPI's wheels
# make a bundle of about 500 MB), SIZE_BUDGET_MB (default 350) and STRICT_SIZE=1 to fail when the bundle is larger
# (packaging/size_budget.sh; CI sets it, ADR 0050).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python3.11}"
PYINSTALLER_VERSION="6.22.3"
BUILD="$ROOT/build"
VENV="$BUILD/venv"
DIST="$ROOT/dist"
APPDIR="$DIST/ScreenLab"

say() { printf '\n== %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

command -v "$PYTHON" >/dev/null || die "$PYTHON not found (set PYTHON=/path/to/python3.11)"
"$PYTHON" - <<'EOF' || die "$PYTHON cannot build the bundle (see above)"
import sys, sysconfig
if sys.version_info < (3, 11):
    sys.exit(f"ScreenLab needs Python >= 3.11, this is {sys.version.split()[0]}")
if not sysconfig.get_config_var("Py_ENABLE_SHARED"):
    sys.exit("PyInstaller needs a Python built with --enable-shared (libpython3.x.so); "
             "pyenv: PYTHON_CONFIGURE_OPTS=--enable-shared pyenv install 3.11")
EOF
VERSION=$("$PYTHON" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')
ARCH=$(uname -m)
TARBALL="$DIST/ScreenLab-$VERSION-linux-$ARCH.tar.gz"
STARTED=$(date +%s)

say "build environment ($VENV)"
if [[ "${KEEP_BUILD_VENV:-0}" != 1 || ! -x "$VENV/bin/python" ]]; then
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
fi
# uv where the checkout's .venv has it (make installs it, ADR 0064; UV=/path/to/uv names another): the same pins in a
# fraction of pip's time, which in CI is on the way to the end (the build runs beside the suite); pip otherwise
UV="${UV:-$ROOT/.venv/bin/uv}"
if [[ -x "$UV" ]] && "$UV" pip install --quiet --python "$VENV/bin/python" ".[docs]" "pyinstaller==$PYINSTALLER_VERSION"; then
    :
else
    [[ -x "$UV" ]] && echo "uv could not install the build environment: pip installs it instead"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check ".[docs]" "pyinstaller==$PYINSTALLER_VERSION"
fi
if [[ "${KEEP_BUILD_VENV:-0}" == 1 ]]; then  # same version number, new code: install it again
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps .
fi
if [[ "${RELEASE:-0}" == 1 ]]; then  # the release build: both libraries below, built once and cached
    MINIMAL_OPENCV=1 NUMPY_NOBLAS=1
fi
if [[ "${NUMPY_NOBLAS:-0}" == 1 ]]; then  # numpy without OpenBLAS: -28 MB (packaging/numpy/README.md)
    say "numpy without BLAS (packaging/numpy/build_numpy_noblas.sh: about 8 min once, then cached)"
    WHEEL=$(PYTHON="$VENV/bin/python" packaging/numpy/build_numpy_noblas.sh | tail -1)
    [[ -f "$WHEEL" ]] || die "the numpy build gave no wheel (see above)"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$WHEEL"
fi
if [[ "${MINIMAL_OPENCV:-0}" == 1 ]]; then  # OpenCV 159 MB -> 18 MB (packaging/opencv/README.md)
    say "minimal OpenCV (packaging/opencv/build_minimal_opencv.sh: about 10 min once, then cached)"
    WHEEL=$(PYTHON="$VENV/bin/python" packaging/opencv/build_minimal_opencv.sh | tail -1)
    [[ -f "$WHEEL" ]] || die "the minimal OpenCV build gave no wheel (see above)"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$WHEEL"
fi
"$VENV/bin/python" -m pip check

if [[ ! -f resources/icons/screenlab.png ]]; then
    QT_QPA_PLATFORM=offscreen "$VENV/bin/python" packaging/render_icon.py
fi

say "user guide (docs/guide/ -> build/guide/, shipped as guide/: Help > User guide)"
"$VENV/bin/mkdocs" build --quiet --strict --site-dir "$BUILD/guide"

say "PyInstaller $PYINSTALLER_VERSION (one-folder)"
rm -rf "$APPDIR" "$TARBALL"
"$VENV/bin/pyinstaller" --noconfirm --clean --log-level WARN \
    --distpath "$DIST" --workpath "$BUILD/pyinstaller" packaging/screenlab.spec

say "desktop entry, icon, readme"
cp resources/icons/screenlab.png resources/icons/screenlab.svg "$APPDIR/"
cp packaging/linux/screenlab.desktop packaging/linux/install-desktop-entry.sh "$APPDIR/"
sed "s/@VERSION@/$VERSION/" packaging/linux/README.txt > "$APPDIR/README.txt"
chmod 0755 "$APPDIR/screenlab" "$APPDIR/install-desktop-entry.sh"
if [[ -f "$APPDIR/_internal/playwright/driver/node" ]]; then  # shipped uncompressed (SCREENLAB_COMPRESS_NODE=0)
    chmod 0755 "$APPDIR/_internal/playwright/driver/node"
fi

BEFORE=$(du -sb "$APPDIR" | cut -f1)
if [[ "${NO_STRIP:-0}" != 1 ]]; then
    if command -v strip >/dev/null && command -v readelf >/dev/null && command -v file >/dev/null; then
        say "strip (ELF files that still carry symbols or debug info)"
        # Most wheels ship stripped libraries; the big exceptions are Node.js (~33 MB of symbols) and
        # libpython (~18 MB). Left alone: libraries that auditwheel grafted and patchelf rewrote
        # (in *.libs/, hashed names, or an $ORIGIN run path) - strip corrupts those ("ELF load command
        # address/offset not page-aligned"). --strip-unneeded keeps the dynamic symbols; the
        # self-check in smoke_test.sh loads every one of these libraries afterwards.
        find "$APPDIR" -type f \( -name '*.so*' -o -perm -u+x \) -print0 \
          | xargs -0 file -N -F $'\t' \
          | awk -F $'\t' '/ELF/ && /not stripped|with debug_info/ {print $1}' \
          | while IFS= read -r f; do
                case "$f" in */*.libs/*) continue ;; esac
                [[ "$(basename "$f")" =~ -[0-9a-f]{8}\.so ]] && continue
                readelf -d "$f" 2>/dev/null | grep -E '(RPATH|RUNPATH).*\$ORIGIN' >/dev/null && continue
                mode=$(stat -c %a "$f")
                chmod u+w "$f"
                strip --strip-unneeded "$f" 2>/dev/null || echo "  (could not strip $f, kept as is)"
                chmod "$mode" "$f"
            done
    else
        echo "strip or file not installed: skipping (apt-get install binutils file)"
    fi
fi

say "tarball"
# one top folder "ScreenLab"; root-owned entries and sorted names, so rebuilds compare equal.
# Level 6 with pigz where installed: the same gzip format on every core, and pigz's bytes do not depend on how
# many. The bundle's 341 MB on 2 cores: gzip -9 44 s, 186.3 MB; pigz -6 9 s, 186.8 MB (0.3 % more).
GZIP_CMD='gzip -6 -n'
if command -v pigz >/dev/null; then GZIP_CMD='pigz -6 -n'; fi
tar -C "$DIST" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@${SOURCE_DATE_EPOCH:-$STARTED}" \
    -I "$GZIP_CMD" -cf "$TARBALL" ScreenLab
# shellcheck source=packaging/sha256sums.sh
source packaging/sha256sums.sh
record_sha256 "$TARBALL"  # dist/SHA256SUMS, published beside the download

SIZE=$(du -sb "$APPDIR" | cut -f1)
TGZ=$(stat -c %s "$TARBALL")
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1048576 }'; }
say "result"
echo "bundle:   $APPDIR  $(mb "$SIZE") unpacked (before strip: $(mb "$BEFORE"))"
echo "tarball:  $TARBALL  $(mb "$TGZ")"
echo "largest parts:"
{
    du -sb "$APPDIR"/_internal/* "$APPDIR/screenlab"
    du -sb "$APPDIR"/_internal/playwright/driver/node* "$APPDIR"/_internal/PySide6/Qt/lib/libicudata* 2>/dev/null
} | sort -rn | sed -n 1,14p | while read -r bytes path; do printf '  %10s  %s\n' "$(mb "$bytes")" "${path#"$APPDIR"/}"; done \
    || true  # head closing the pipe early (SIGPIPE) is not a build failure
# shellcheck source=packaging/size_budget.sh
source packaging/size_budget.sh
check_size_budget "$SIZE" "the bundle" || exit 3
if command -v objdump >/dev/null; then
    # the newest glibc symbol any bundled binary needs = the oldest Linux the bundle runs on
    GLIBC=$(find "$APPDIR" -type f \( -name '*.so*' -o -perm -u+x \) -exec objdump -T {} + 2>/dev/null \
            | grep -o 'GLIBC_[0-9][0-9.]*' | sort -u -V | tail -1 || true)
    echo "needs:    ${GLIBC/GLIBC_/glibc >= } (libstdc++, libgcc_s, libexpat come from the system)"
fi
echo "built in $(( $(date +%s) - STARTED )) s; next: packaging/smoke_test.sh"
