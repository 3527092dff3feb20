#!/bin/sh
# What the single-file installer runs (dist/ScreenLab-<version>-linux-x86_64.run, packaging/build_run.sh) once
# makeself has unpacked it into a scratch folder: ScreenLab for this user only, no root, no package manager.
#   ./ScreenLab-@VERSION@-linux-x86_64.run                    install (or update) and start ScreenLab
#   ./ScreenLab-@VERSION@-linux-x86_64.run -- --no-start      install only
#   ~/.local/opt/screenlab/uninstall.sh [--data]               remove it again (--data: settings, caches, logs too)
# Installed rather than run from the scratch folder each time: unpacking 340 MB took 11 s before every start
# (ADR 0056). The program goes to ~/.local/opt/screenlab (SCREENLAB_INSTALL_DIR to choose), the `screenlab`
# command to ~/.local/bin, the menu entry and icons to ~/.local/share; a user's data is never written here.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
TARGET="${SCREENLAB_INSTALL_DIR:-$HOME/.local/opt/screenlab}"
BIN="$HOME/.local/bin"
START=1
for arg in "$@"; do
    case "$arg" in
        --no-start) START=0 ;;
        *) echo "unknown option: $arg (the one option is --no-start)" >&2; exit 2 ;;
    esac
done

echo "Installing ScreenLab @VERSION@ into $TARGET"
mkdir -p "$(dirname "$TARGET")" "$BIN"
# copied beside the old version, then swapped in: an interrupted install leaves the old one working
NEW="$TARGET.new.$$"
rm -rf "$NEW"
cp -a "$HERE/." "$NEW"
rm -f "$NEW/install-user.sh"
cat > "$NEW/uninstall.sh" <<UNINSTALL
#!/bin/sh
# Remove ScreenLab installed by its single-file installer: the program, the screenlab command, the menu entry.
# --data first removes this user's settings, caches and logs (screenlab uninstall-data; add --projects to it by
# hand to delete the projects in ScreenLab's data folder too).
set -eu
if [ "\${1:-}" = "--data" ]; then "$TARGET/screenlab" uninstall-data --yes; fi
"$TARGET/install-desktop-entry.sh" --remove
if grep -qs "$TARGET/screenlab" "$BIN/screenlab"; then rm -f "$BIN/screenlab"; fi
rm -rf "$TARGET"
echo "ScreenLab removed. Projects and settings are kept unless removed with: screenlab uninstall-data"
UNINSTALL
chmod 0755 "$NEW/uninstall.sh"
if [ -e "$TARGET" ]; then
    rm -rf "$TARGET.old"
    mv "$TARGET" "$TARGET.old"
fi
mv "$NEW" "$TARGET"
rm -rf "$TARGET.old"

# a wrapper, not a link: the bundle finds its _internal/ beside the real executable
printf '#!/bin/sh\nexec "%s/screenlab" "$@"\n' "$TARGET" > "$BIN/screenlab"
chmod 0755 "$BIN/screenlab"
"$TARGET/install-desktop-entry.sh"
echo "Start it from the applications menu, or run: $BIN/screenlab"
case ":$PATH:" in *":$BIN:"*) ;; *) echo "($BIN is not on your PATH: log out and in again, or use the full path)" ;; esac
echo "Remove it with: $TARGET/uninstall.sh"

if [ "$START" = 1 ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
    # started from the installed copy, so the scratch folder can go as soon as this script ends
    nohup "$TARGET/screenlab" </dev/null >/dev/null 2>&1 &
fi
