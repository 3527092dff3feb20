# shellcheck shell=bash
# The cache of the wheels the release build makes itself (packaging/opencv/, packaging/numpy/); sourced by
# their build scripts. A wheel lives in $SCREENLAB_BUILD_CACHE/<name>/<version>-<hash of version, recipe, flags>/
# beside its build.log and flags.txt, so a change of pin, steps or flags builds again and nothing else does.

# wheel_cache_folder NAME VERSION RECIPE FLAG...: sets OUT to the wheel's folder (not created)
wheel_cache_folder() {
  local name=$1 version=$2 recipe=$3
  shift 3
  local hash
  hash="$(printf '%s\n' "$version" "$recipe" "$@" | sha256sum | cut -c1-10)"
  OUT="${SCREENLAB_BUILD_CACHE:-$HOME/.cache/screenlab-build}/$name/$version-$hash"
}

# print_cached_wheel TAG PATTERN: prints the cached wheel's path and exits the script, when there is one
print_cached_wheel() {
  local existing
  existing=$(ls "$OUT"/$2 2>/dev/null | sed -n 1p || true)
  if [[ -n "$existing" ]]; then
    echo "$1: cached, nothing to build"
    echo "$existing"
    exit 0
  fi
}

# keep_wheel TAG BUILT_DIR PATTERN STARTED FLAG...: moves the built wheel into OUT, notes its flags, prints its path
keep_wheel() {
  local tag=$1 built=$2 pattern=$3 started=$4 wheel
  shift 4
  wheel=$(ls "$built"/$pattern | sed -n 1p)
  mv "$wheel" "$OUT/"
  wheel="$OUT/$(basename "$wheel")"
  printf '%s\n' "$@" >"$OUT/flags.txt"
  echo "$tag: built in $(( $(date +%s) - started )) s, $(du -h "$wheel" | cut -f1)"
  echo "$wheel"
}
