#!/bin/sh
# System packages the test suite needs: a Chromium for Playwright (never
# downloaded at run time), Xvfb, fonts, the libraries Qt loads, PostgreSQL (the tests start their own
# throw-away server: tests/pg_server.py) and PgBouncer in front of it (tests/test_team_pgbouncer.py), and
# the release check's tools (ip for the network namespace, xwininfo, strip/readelf, file, makeself and pigz for the .run),
# and tesseract (the OCR engine a user may pick instead of the bundled one; tests/test_ocr.py runs it).
PACKAGES="chromium xvfb xauth fonts-dejavu-core libegl1 libgl1 libglib2.0-0 libfontconfig1 libdbus-1-3 \
libxkbcommon0 libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0 \
libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1 libxcb-xfixes0 libnss3 \
iproute2 x11-utils binutils file makeself pigz postgresql pgbouncer tesseract-ocr"

have_browser() {
  [ -n "$SCREENLAB_BROWSER" ] && return 0
  for b in chromium chromium-browser google-chrome google-chrome-stable microsoft-edge; do
    command -v "$b" >/dev/null 2>&1 && return 0
  done
  return 1
}

missing=""
if command -v dpkg-query >/dev/null 2>&1; then
  for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
  done
elif ! have_browser; then
  echo "The tests need Chromium, Chrome or Edge; install one (or set SCREENLAB_BROWSER)." >&2
  exit 1
fi
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing system packages:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null
elif have_browser; then
  echo "note: some optional system packages are missing:$missing" >&2
else
  echo "The tests need these system packages:$missing" >&2
  echo "Install them with: sudo apt-get install$missing" >&2
  exit 1
fi
