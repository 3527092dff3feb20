#!/usr/bin/env bash
# Make dist/screenlab_<version>_amd64.deb from the Linux bundle (dist/ScreenLab/, packaging/build_linux.sh) with
# dpkg-deb: the program in /opt/screenlab, the `screenlab` command in /usr/bin, the menu entry and icons in
# /usr/share. Its checksum goes to dist/SHA256SUMS beside the tarball's.
#
#   packaging/build_linux.sh && packaging/build_deb.sh [path/to/ScreenLab-folder]
#   sudo apt-get install ./dist/screenlab_<version>_amd64.deb      # and: sudo apt-get remove screenlab
#
# Depends is worked out from the bundle, as dpkg-shlibdeps would: every library a bundled program or library
# needs (ELF NEEDED) that the bundle does not carry, and the Debian package holding it on this machine; so
# build on the oldest release you ship to (the glibc floor is the newest glibc symbol any binary uses).
# Needs dpkg-deb, dpkg-query, objdump (binutils) and file, as on Debian/Ubuntu. No maintainer scripts: the menu
# and icon caches are refreshed by the triggers of desktop-file-utils and hicolor-icon-theme; a user's data
# (~/.config/ScreenLab ...) is never touched by the package (`screenlab uninstall-data` removes it).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUNDLE="${1:-$ROOT/dist/ScreenLab}"
VERSION=$(python3 -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')
ARCH=amd64
DEB="$ROOT/dist/screenlab_${VERSION}_${ARCH}.deb"
STAGE="$ROOT/build/deb/screenlab"

die() { printf 'error: %s\n' "$*" >&2; exit 1; }
[[ -x "$BUNDLE/screenlab" ]] || die "no bundle at $BUNDLE: run packaging/build_linux.sh first"
[[ "$(uname -m)" == x86_64 ]] || die "the bundle is built per architecture; this script packages x86_64 (amd64)"
for tool in dpkg-deb dpkg-query objdump file; do
    command -v "$tool" >/dev/null || die "$tool not found (apt-get install dpkg-dev binutils file)"
done

echo "== staging $STAGE"
rm -rf "$STAGE"
mkdir -p "$STAGE/DEBIAN" "$STAGE/opt" "$STAGE/usr/bin" "$STAGE/usr/share/applications" \
         "$STAGE/usr/share/icons/hicolor/256x256/apps" "$STAGE/usr/share/icons/hicolor/scalable/apps" \
         "$STAGE/usr/share/doc/screenlab"
cp -a "$BUNDLE" "$STAGE/opt/screenlab"
# the tarball's per-user menu installer has no use in a system package (the entry below is for everyone)
rm -f "$STAGE/opt/screenlab/install-desktop-entry.sh" "$STAGE/opt/screenlab/screenlab.desktop"
# a wrapper, not a link: the bundle finds its _internal/ beside the real executable whatever the caller
cat > "$STAGE/usr/bin/screenlab" <<'EOF'
#!/bin/sh
exec /opt/screenlab/screenlab "$@"
EOF
chmod 0755 "$STAGE/usr/bin/screenlab"
sed -e 's|^Exec=.*|Exec=/usr/bin/screenlab|' -e 's|^TryExec=.*|TryExec=/usr/bin/screenlab|' \
    -e 's|^Icon=.*|Icon=screenlab|' packaging/linux/screenlab.desktop > "$STAGE/usr/share/applications/screenlab.desktop"
cp resources/icons/screenlab.png "$STAGE/usr/share/icons/hicolor/256x256/apps/screenlab.png"
cp resources/icons/screenlab.svg "$STAGE/usr/share/icons/hicolor/scalable/apps/screenlab.svg"
cat > "$STAGE/usr/share/doc/screenlab/README.Debian" <<EOF
ScreenLab $VERSION, installed in /opt/screenlab; run \`screenlab\` or pick it from the applications menu.
Removing the package leaves each user's projects, settings, caches and logs; \`screenlab uninstall-data\`
(before removing, as that user) deletes them, --projects the projects too. See /opt/screenlab/README.txt.
EOF
find "$STAGE" -type d -exec chmod 0755 {} +
chmod -R u+rw,go+r,go-w "$STAGE"

echo "== Depends (libraries the bundle needs from the system)"
ELVES=$(find "$STAGE/opt/screenlab" -type f \( -name '*.so*' -o -perm -u+x \) -print0 \
        | xargs -0 file -N -F $'\t' | awk -F $'\t' '/ELF/ { print $1 }')
NEEDED=$(printf '%s\n' "$ELVES" | xargs objdump -p 2>/dev/null | awk '/NEEDED/ { print $2 }' | sort -u)
CARRIED=$(find "$STAGE/opt/screenlab" -name '*.so*' -printf '%f\n' | sort -u)
PACKAGES=""
for lib in $(comm -23 <(printf '%s\n' "$NEEDED") <(printf '%s\n' "$CARRIED")); do
    # awk reads to the end (no `exit`, no `head`): a reader that stops early kills the writer with SIGPIPE, and
    # under pipefail that ended the build with status 141 on some runs
    path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ && !found { print $NF; found = 1 }')
    [[ -n "$path" ]] || die "$lib is needed by the bundle but not installed here, so its package is unknown"
    owner=""
    for candidate in "$path" "$(readlink -f "$path")" "/usr$path"; do  # merged /usr: dpkg may know the other name
        owner=$(dpkg-query -S "$candidate" 2>/dev/null | awk -F: 'NR == 1 { print $1 }') && [[ -n "$owner" ]] && break
    done
    [[ -n "$owner" ]] || die "no Debian package owns $path ($lib)"
    printf '  %-28s %s\n' "$lib" "$owner"
    PACKAGES="$PACKAGES $owner"
done
GLIBC=$(printf '%s\n' "$ELVES" | xargs objdump -T 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' | sort -u -V | tail -1)
DEPENDS="libc6 (>= ${GLIBC#GLIBC_})"
for p in $(printf '%s\n' $PACKAGES | sort -u); do
    [[ "$p" == libc6 ]] || DEPENDS="$DEPENDS, $p"
done
echo "  Depends: $DEPENDS"

SIZE_KB=$(du -sk --exclude=DEBIAN "$STAGE" | cut -f1)
# the budget on what apt tells the user the package takes (Installed-Size, whole disk blocks: a little more than the
# bundle's du -sb); STRICT_SIZE=1 (.ci/run) fails here, before a package over it is made
# shellcheck source=packaging/size_budget.sh
source packaging/size_budget.sh
check_size_budget $((SIZE_KB * 1024)) "the .deb's Installed-Size" || exit 3
cat > "$STAGE/DEBIAN/control" <<EOF
Package: screenlab
Version: $VERSION
Architecture: $ARCH
Maintainer: ScreenLab <screenlab@localhost>
Installed-Size: $SIZE_KB
Depends: $DEPENDS
Recommends: chromium | google-chrome-stable | microsoft-edge-stable, fonts-dejavu-core
Suggests: gnome-keyring
Section: graphics
Priority: optional
Homepage: https://github.com/screenlab/screenlab
Description: label screens, synthesize distracting screens, evaluate GUI agents
 ScreenLab labels the actions on a screenshot as gold, distracted or other, synthesizes distracting
 screens with an LLM and a browser, and evaluates GUI agents against those labels, offline. Rendering
 needs an installed Chromium, Chrome or Edge (never downloaded).
EOF

echo "== dpkg-deb"
mkdir -p "$(dirname "$DEB")"
# root-owned entries whatever user builds it; gzip: xz took 7 minutes of one core here for 8 % less. Level 6:
# dpkg-deb compresses on one core: -9 took 43 s here, -6 17 s, for 0.3 % less (as the tarball, build_linux.sh)
dpkg-deb --root-owner-group -Zgzip -z6 --build "$STAGE" "$DEB" >/dev/null
# shellcheck source=packaging/sha256sums.sh
source packaging/sha256sums.sh
record_sha256 "$DEB"
echo "deb:      $DEB  $(du -h "$DEB" | cut -f1)  (installed: $((SIZE_KB / 1024)) MB)"
echo "next:     apt-get install ./${DEB#"$ROOT"/}"
