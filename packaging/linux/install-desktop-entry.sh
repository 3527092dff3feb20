#!/bin/sh
# Put ScreenLab in your applications menu (this user only, no root needed).
#   ./install-desktop-entry.sh            add (again after moving this folder)
#   ./install-desktop-entry.sh --remove   take it out
# For all users, unpack to /opt instead and copy screenlab.desktop to /usr/share/applications/.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
DATA="${XDG_DATA_HOME:-$HOME/.local/share}"
ENTRY="$DATA/applications/screenlab.desktop"
ICON="$DATA/icons/hicolor/256x256/apps/screenlab.png"
SVG="$DATA/icons/hicolor/scalable/apps/screenlab.svg"

if [ "${1:-}" = "--remove" ]; then
    rm -f "$ENTRY" "$ICON" "$SVG"
    echo "ScreenLab removed from the applications menu."
    exit 0
fi
mkdir -p "$(dirname "$ENTRY")" "$(dirname "$ICON")" "$(dirname "$SVG")"
cp "$HERE/screenlab.png" "$ICON"
cp "$HERE/screenlab.svg" "$SVG"
# Desktop-entry quoting: the path in double quotes, with \ " ` $ escaped and % doubled
EXEC=$(printf '%s' "$HERE/screenlab" | sed -e 's/[\\"`$]/\\\\&/g' -e 's/%/%%/g')
sed -e "s|^Exec=.*|Exec=\"$EXEC\"|" -e "s|^TryExec=.*|TryExec=$HERE/screenlab|" -e "s|^Icon=.*|Icon=screenlab|" \
    "$HERE/screenlab.desktop" > "$ENTRY"
chmod 0644 "$ENTRY"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$(dirname "$ENTRY")" 2>/dev/null || true
command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q "$DATA/icons/hicolor" 2>/dev/null || true
echo "ScreenLab added to the applications menu: $ENTRY"
