# shellcheck shell=bash
# Sourced by the build scripts (bash): record_sha256 FILE puts FILE's line into SHA256SUMS beside it, in the
# format `sha256sum -c SHA256SUMS` checks (replacing an earlier line for the same name, keeping the others:
# the tarball and the .deb share dist/SHA256SUMS). Publish SHA256SUMS with the downloads.
record_sha256() {
    local dir name line
    dir=$(cd "$(dirname "$1")" && pwd)
    name=$(basename "$1")
    if command -v sha256sum >/dev/null; then
        line=$(cd "$dir" && sha256sum -- "$name")
    else  # macOS: shasum prints the same "<hash>  <name>"
        line=$(cd "$dir" && shasum -a 256 -- "$name")
    fi
    {
        [[ -f "$dir/SHA256SUMS" ]] && awk -v n="$name" '{ f = $0; sub(/^[0-9a-f]+ [ *]/, "", f); if (f != n) print }' "$dir/SHA256SUMS"
        printf '%s\n' "$line"
    } > "$dir/SHA256SUMS.new"
    mv "$dir/SHA256SUMS.new" "$dir/SHA256SUMS"
    echo "sha256:   ${line%% *}  (in $dir/SHA256SUMS)"
}
