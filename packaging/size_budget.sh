# shellcheck shell=bash
# The size budget of what a user downloads, sourced by build_linux.sh (the unpacked bundle) and build_deb.sh (what
# the package installs). SIZE_BUDGET_MB (default 350) is the budget; with STRICT_SIZE=1, as .ci/run sets, a build
# over it fails (ADR 0050), otherwise it only says so.

# size_mb BYTES: "123.4 MB" (MiB, as du -sb / 1048576)
size_mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1048576 }'; }

# check_size_budget BYTES WHAT: one line saying whether WHAT fits; returns 3 when it does not and STRICT_SIZE=1
check_size_budget() {
  local bytes=$1 what=$2 budget_mb=${SIZE_BUDGET_MB:-350}
  local budget=$((budget_mb * 1048576))
  if (( bytes > budget )); then
    echo "SIZE BUDGET EXCEEDED: $what $(size_mb "$bytes") > $budget_mb MB (by $(size_mb $((bytes - budget)))); see packaging/README.md"
    if [[ "${STRICT_SIZE:-0}" == 1 ]]; then
      echo "STRICT_SIZE=1: failing the build"
      return 3
    fi
  else
    echo "within the $budget_mb MB budget: $what $(size_mb "$bytes")"
  fi
}
