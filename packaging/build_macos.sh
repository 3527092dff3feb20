#!/usr/bin/env bash
# Build ScreenLab for macOS: dist/ScreenLab.app and dist/ScreenLab-<version>-macos-<arch>.dmg.
# For macOS 14+ on Apple silicon (arm64), the only Mac the pinned wheels allow: onnxruntime 1.31.1 ships only
# macosx_14_0_arm64 and has no Intel wheel, so an Intel (x86_64) build cannot be made with these pins (it needs an
# older onnxruntime, tested apart: packaging/README.md). The wheels are per-architecture; no universal2 build.
# The .dmg's checksum goes to dist/SHA256SUMS.
#
#   packaging/build_macos.sh
#
# Needs: Python 3.11 from python.org or Homebrew (PYTHON=...), Xcode command line tools
# (codesign, hdiutil, iconutil, sips). Environment:
#   KEEP_BUILD_VENV=1     reuse build/venv
#   CODESIGN_IDENTITY     "Developer ID Application: Name (TEAMID)"; without it PyInstaller signs
#                         ad hoc (runs on this Mac; Gatekeeper blocks it elsewhere: right-click > Open)
#   NOTARY_PROFILE        a `xcrun notarytool store-credentials` profile: notarize and staple the .dmg
# Signing uses packaging/macos/entitlements.plist (Node.js and onnxruntime need JIT under the
# hardened runtime).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python3.11}"
PYINSTALLER_VERSION="6.22.3"
BUILD="$ROOT/build"
VENV="$BUILD/venv"
DIST="$ROOT/dist"
APP="$DIST/ScreenLab.app"
[[ "$(uname -s)" == Darwin ]] || { echo "build_macos.sh runs on macOS (use build_linux.sh here)" >&2; exit 2; }

VERSION=$("$PYTHON" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')
ARCH=$(uname -m)  # arm64 or x86_64
DMG="$DIST/ScreenLab-$VERSION-macos-$ARCH.dmg"

echo "== build environment ($VENV)"
if [[ "${KEEP_BUILD_VENV:-0}" != 1 || ! -x "$VENV/bin/python" ]]; then
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check ".[docs]" "pyinstaller==$PYINSTALLER_VERSION"
[[ "${KEEP_BUILD_VENV:-0}" == 1 ]] && "$VENV/bin/python" -m pip install --quiet --force-reinstall --no-deps .

echo "== icon (.icns from resources/icons/screenlab.svg)"
ICONSET="$BUILD/icons/screenlab.iconset"
rm -rf "$ICONSET" && mkdir -p "$ICONSET"
for size in 16 32 128 256 512; do
    QT_QPA_PLATFORM=offscreen "$VENV/bin/python" - "$size" "$ICONSET" <<'EOF'
import sys
from pathlib import Path
sys.path.insert(0, "packaging")
from render_icon import render
size, folder = int(sys.argv[1]), Path(sys.argv[2])
render(size, folder / f"icon_{size}x{size}.png")
render(size * 2, folder / f"icon_{size}x{size}@2x.png")
EOF
done
iconutil -c icns "$ICONSET" -o "$BUILD/icons/screenlab.icns"

echo "== user guide (docs/guide/ -> build/guide/)"
"$VENV/bin/mkdocs" build --quiet --strict --site-dir "$BUILD/guide"

echo "== PyInstaller $PYINSTALLER_VERSION (.app)"
rm -rf "$APP" "$DIST/ScreenLab" "$DMG"
CODESIGN_IDENTITY="${CODESIGN_IDENTITY:-}" "$VENV/bin/pyinstaller" --noconfirm --clean --log-level WARN \
    --distpath "$DIST" --workpath "$BUILD/pyinstaller" packaging/screenlab.spec
# (on its own line: as the left side of `&&` a failed verification would not stop the script under set -e)
codesign --verify --deep --strict "$APP"
echo "signature ok (${CODESIGN_IDENTITY:-ad hoc})"

echo "== smoke test (offscreen, fresh user folders)"
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
run() {
    env -i HOME="$SCRATCH/home" PATH=/usr/bin:/bin LANG=en_US.UTF-8 QT_QPA_PLATFORM=offscreen \
        SCREENLAB_SMOKE_SCREENSHOT="$SCRATCH/smoke.png" "$APP/Contents/MacOS/ScreenLab" "$@"
}
start=$(python3 -c 'import time; print(time.time())')
run --smoke
python3 -c "import time; print(f'first start (creates the demo project): {time.time() - $start:.2f} s')"
[[ -s "$SCRATCH/smoke.png" ]] || { echo "no screenshot" >&2; exit 1; }
[[ -f "$SCRATCH/home/Library/Application Support/ScreenLab/demo-project/screenlab.sqlite" ]] \
    || { echo "no demo project" >&2; exit 1; }
run --bundle-selfcheck
if ls "$SCRATCH/home/Library/Logs/ScreenLab"/crash-*.log >/dev/null 2>&1; then echo "crash log written" >&2; exit 1; fi
# Network: macOS has no unshare; the app is offline by construction. To prove it, run the two
# commands above with Wi-Fi off, or under `sandbox-exec -p '(version 1)(allow default)(deny network-outbound (remote ip))'`.

echo "== dmg"
STAGE="$BUILD/dmg"
rm -rf "$STAGE" && mkdir -p "$STAGE"
cp -R "$APP" "$STAGE/"
ln -s /Applications "$STAGE/Applications"
hdiutil create -volname "ScreenLab $VERSION" -srcfolder "$STAGE" -ov -format UDZO -fs HFS+ "$DMG" >/dev/null
if [[ -n "${CODESIGN_IDENTITY:-}" ]]; then
    codesign --sign "$CODESIGN_IDENTITY" --timestamp "$DMG"
    if [[ -n "${NOTARY_PROFILE:-}" ]]; then
        xcrun notarytool submit "$DMG" --keychain-profile "$NOTARY_PROFILE" --wait
        xcrun stapler staple "$DMG"
    fi
fi
# shellcheck source=packaging/sha256sums.sh
source packaging/sha256sums.sh
record_sha256 "$DMG"  # after signing and stapling: the file users download
echo "app:  $APP  $(du -sh "$APP" | cut -f1)"
echo "dmg:  $DMG  $(du -sh "$DMG" | cut -f1)"
