#!/usr/bin/env bash
# Make dist/ScreenLab-<version>-linux-x86_64.run, one file that installs ScreenLab for the user who runs it (no
# root, no package manager) and starts it: the AppImage-style download of ADR 0056, made with makeself (Debian's
# `makeself` package) from the bundle packaging/build_linux.sh built. Its checksum goes to dist/SHA256SUMS.
#
#   packaging/build_linux.sh && packaging/build_run.sh [path/to/ScreenLab-folder]
#   ./dist/ScreenLab-<version>-linux-x86_64.run [-- --no-start]       # as the user; then ~/.local/opt/screenlab
#   ./dist/ScreenLab-<version>-linux-x86_64.run --check | --list        # makeself's own: verify, list the contents
#
# gzip, not zstd or xz: the file unpacks itself with the user's own tools, and every Linux has gzip.
# Needs makeself (apt-get install makeself; pigz too for a faster build).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUNDLE="${1:-$ROOT/dist/ScreenLab}"
VERSION=$(python3 -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')
DIST="${DIST:-$ROOT/dist}"  # where the .run and SHA256SUMS go
RUN="$DIST/ScreenLab-$VERSION-linux-$(uname -m).run"
STAGE="${BUILD:-$ROOT/build}/run/ScreenLab"

die() { printf 'error: %s\n' "$*" >&2; exit 1; }
[[ -x "$BUNDLE/screenlab" ]] || die "no bundle at $BUNDLE: run packaging/build_linux.sh first"
command -v makeself >/dev/null || die "makeself not found (apt-get install makeself)"

echo "== staging $STAGE"
rm -rf "$STAGE"
mkdir -p "$(dirname "$STAGE")"
# hard links where the filesystem allows (no second copy of 340 MB), else a copy
cp -al "$BUNDLE" "$STAGE" 2>/dev/null || { rm -rf "$STAGE"; cp -a "$BUNDLE" "$STAGE"; }
rm -f "$STAGE/install-user.sh"
sed "s/@VERSION@/$VERSION/g" packaging/linux/install-user.sh > "$STAGE/install-user.sh"
chmod 0755 "$STAGE/install-user.sh"

echo "== makeself"
mkdir -p "$(dirname "$RUN")"
# --sha256: the file checks itself before unpacking (a broken download says so instead of half-installing)
# pigz where installed: the same gzip stream (the user's `gzip -cd` unpacks it) made on every core
COMPRESS=--gzip
if command -v pigz >/dev/null; then COMPRESS=--pigz; fi
makeself "$COMPRESS" --complevel 6 --sha256 --tar-quietly --tar-extra "--owner=0 --group=0 --numeric-owner" \
    "$STAGE" "$RUN" "ScreenLab $VERSION" ./install-user.sh >/dev/null
rm -rf "$(dirname "$STAGE")"
# shellcheck source=packaging/sha256sums.sh
source packaging/sha256sums.sh
record_sha256 "$RUN"
# shellcheck source=packaging/size_budget.sh
source packaging/size_budget.sh
echo "run:      $RUN  $(size_mb "$(stat -c %s "$RUN")")"
