#!/usr/bin/env bash
# The single-file installer as a user runs it (.ci/run): in a fresh home, install without starting, check the
# command and the menu entry, that the installed copy is the bundle file for file, run uninstall.sh --data, and check
# that nothing of ours is left in that home (ADR 0056).
#   packaging/check_run_installer.sh [dist/ScreenLab-<version>-linux-x86_64.run]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUN="${1:-$(ls "$ROOT"/dist/ScreenLab-*-linux-*.run)}"
fail() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }
[[ -f "$RUN" ]] || fail "no installer at $RUN: run packaging/build_run.sh first"

HOME_DIR=$(mktemp -d)
trap 'rm -rf "$HOME_DIR"' EXIT
as_user() { env -i HOME="$HOME_DIR" PATH=/usr/bin:/bin LANG=C.UTF-8 TMPDIR="${TMPDIR:-/tmp}" QT_QPA_PLATFORM=offscreen "$@"; }

echo "== the installer checks itself ($(basename "$RUN"))"
as_user sh "$RUN" --check >/dev/null 2>&1 || fail "the installer's own checksum check failed"
echo "== install (a fresh home, no root needed)"
t0=$(date +%s.%N)
as_user sh "$RUN" --nox11 --quiet -- --no-start || fail "the installer failed"
echo "  installed in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
TARGET="$HOME_DIR/.local/opt/screenlab"
[[ -x "$TARGET/screenlab" && -x "$TARGET/uninstall.sh" ]] || fail "no program in $TARGET"
[[ -x "$HOME_DIR/.local/bin/screenlab" ]] || fail "no screenlab command in ~/.local/bin"
ENTRY="$HOME_DIR/.local/share/applications/screenlab.desktop"
grep -F "Exec=\"$TARGET/screenlab\"" "$ENTRY" >/dev/null || fail "the menu entry does not start $TARGET/screenlab"
as_user "$HOME_DIR/.local/bin/screenlab" --version || fail "the installed screenlab command does not start"
# the installed copy is the bundle smoke_test.sh checked, file for file (the self-check there already ran it)
BUNDLE="$ROOT/dist/ScreenLab"
if [[ -d "$BUNDLE" ]]; then
    diff -r --no-dereference -x uninstall.sh "$BUNDLE" "$TARGET" >/dev/null || fail "the installed copy differs from $BUNDLE"
    echo "  the installed copy is $BUNDLE, file for file"
fi

echo "== installing again (an update) keeps one copy"
as_user sh "$RUN" --nox11 --quiet -- --no-start >/dev/null 2>&1 || fail "installing over an installed copy failed"
extra=$(find "$HOME_DIR/.local/opt" -mindepth 1 -maxdepth 1 ! -name screenlab)
[[ -z "$extra" ]] || fail "left beside the installed copy: $extra"

echo "== uninstall.sh --data"
as_user "$TARGET/uninstall.sh" --data >/dev/null || fail "uninstall.sh failed"
# what may stay: empty folders the freedesktop tools share, the user's projects (uninstall-data without
# --projects keeps them), and what the system's Chromium and GLib keep for themselves (~/.config/chromium's crash
# settings, dconf's cache) after the self-check rendered a page with that browser: theirs, not ours
LEFT=$(find "$HOME_DIR" -type f ! -path "$HOME_DIR/.local/share/ScreenLab/*" ! -path "$HOME_DIR/.config/chromium/*" \
       ! -path "$HOME_DIR/.cache/dconf/*")
[[ -z "$LEFT" ]] || fail "left after uninstall.sh --data: $LEFT"
[[ ! -e "$TARGET" ]] || fail "$TARGET is still there"
echo "the .run: installed, updated and removed without a trace"
