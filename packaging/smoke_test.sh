#!/usr/bin/env bash
# Smoke-test the built Linux bundle the way an annotator's machine runs it:
#   * unpacks the tarball (default: the newest dist/ScreenLab-*-linux-*.tar.gz) into a scratch folder,
#   * runs it with an empty environment (`env -i`): a fresh HOME (so this is the FIRST start),
#     PATH=/usr/bin:/bin (no virtual environment, no developer Python), QT_QPA_PLATFORM=offscreen,
#   * with the network off: a new network namespace holding only loopback (`unshare -n` as root,
#     `unshare -rn` otherwise). When neither is allowed the test says so and, with
#     REQUIRE_NETWORK_OFF=1, fails; it never silently runs online,
#   * `screenlab --smoke` twice (first start: creates the demo project in the user's data folder and
#     opens it; second start: opens it again) - exit code 0, "smoke: ok", the screenshot is a PNG,
#     the demo project exists, no crash log was written - and reports the start-up times,
#   * `screenlab --bundle-selfcheck`: OCR models, migrations, templates, Playwright driver (and a
#     render with the installed Chromium, if any), openai client, Qt plugins, excluded packages,
#   * the bundle's OCR of the first 6 demo screens against the source tree's (.venv, or SCREENLAB_DEV_PYTHON),
#   * no ~/.cache/Microsoft (ONNX Runtime's telemetry is off), then `screenlab uninstall-data --yes --projects`
#     leaves no ScreenLab folder in the user's home.
#
#   packaging/smoke_test.sh [path/to/ScreenLab-...tar.gz | path/to/ScreenLab-folder | an installed command]
#
# An installed command (e.g. /usr/bin/screenlab from the .deb) is run where it is; INSTALL_DIR (default: the
# folder of the resolved executable) is the installation checked to be left unwritten. SAME_AS=<a bundle folder
# this script has tested>: INSTALL_DIR must hold that bundle's files (checked first, the package's own menu files
# aside), and the comparisons with the source tree (OCR, start-up) are not made again.
#
# Start-up time: (1) --smoke offscreen: from launch to the line "smoke: window shown at <epoch>" when
# the app prints it (see packaging/README.md), else to "smoke: ok" (window shown, painted, screenshot
# saved); (2) when xvfb-run and xwininfo exist: launch to the main window being mapped on an X server
# (the xcb platform plugin, as on a desktop), measured from outside. NO_X11=1 skips (2). (3) The first screen
# painted (SCREENLAB_STARTUP_PROBE=1, ui/startup_probe.py) by the bundle and by the source tree
# (.venv or SCREENLAB_DEV_PYTHON) on the same machine, median of 3 starts each after one to warm up.
set -euo pipefail
# no `| head`, `grep -q` or awk `exit` after a writer: under pipefail the writer's SIGPIPE (141) fails the line

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET="${1:-$(ls -t "$ROOT"/dist/ScreenLab-*-linux-*.tar.gz 2>/dev/null | sed -n 1p || true)}"
[[ -n "$TARGET" && -e "$TARGET" ]] || { echo "nothing to test: run packaging/build_linux.sh first" >&2; exit 2; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/screenlab-smoke.XXXXXX")"
cleanup() { [[ "${KEEP_SMOKE_DIR:-0}" == 1 ]] && echo "kept $WORK" || rm -rf "$WORK"; }
trap cleanup EXIT
mkdir -p "$WORK/home" "$WORK/run" "$WORK/opt"
chmod 0700 "$WORK/run"

if [[ -d "$TARGET" ]]; then
    cp -a "$TARGET" "$WORK/opt/ScreenLab"
    APP="$WORK/opt/ScreenLab/screenlab"
elif [[ -x "$TARGET" && "$TARGET" != *.tar.gz ]]; then  # installed by a package: run in place
    APP="$TARGET"
else
    echo "unpacking $TARGET"
    tar -xzf "$TARGET" -C "$WORK/opt"
    APP="$WORK/opt/ScreenLab/screenlab"
fi
if [[ "$APP" == "$TARGET" ]]; then
    INSTALL_DIR="${INSTALL_DIR:-$(dirname "$(readlink -f "$APP")")}"
    echo "testing the installed $APP (installation: $INSTALL_DIR)"
else
    INSTALL_DIR="$WORK/opt/ScreenLab"
fi
[[ -x "$APP" ]] || { echo "FAIL: $APP is missing or not executable" >&2; exit 1; }
if [[ -n "${SAME_AS:-}" ]]; then
    # the .deb leaves out the tarball's per-user menu installer (packaging/build_deb.sh)
    diff -r --no-dereference -x install-desktop-entry.sh -x screenlab.desktop "$SAME_AS" "$INSTALL_DIR" >/dev/null \
        || { echo "FAIL: $INSTALL_DIR differs from $SAME_AS" >&2; exit 1; }
    echo "the installation is $SAME_AS, file for file: its OCR and start-up were compared with the source tree there"
fi
sleep 1; touch "$WORK/installed.stamp"  # anything in the installation newer than this was written by the app

# --- network off --------------------------------------------------------------------------------
NET=()
if command -v unshare >/dev/null; then
    if [[ $(id -u) == 0 ]] && unshare -n true 2>/dev/null; then
        NET=(unshare -n)
    elif unshare -rn true 2>/dev/null; then
        NET=(unshare -rn)
    fi
fi
if ((${#NET[@]})) && ! command -v ip >/dev/null; then
    echo "error: 'ip' is needed to bring up loopback in the network namespace: apt-get install iproute2" >&2
    exit 2
fi
if ((${#NET[@]})); then
    # loopback up (the self-check's local OpenAI-compatible server needs it); nothing else exists
    # shellcheck disable=SC2016
    NET+=(sh -c 'ip link set lo up 2>/dev/null || true; exec "$@"' sandbox)
    IFACES=$("${NET[@]}" sh -c 'ip -o link 2>/dev/null | cut -d: -f2 | tr -d " " | tr "\n" " "' || true)
    echo "network: off (${NET[0]} ${NET[1]}: a network namespace with only: ${IFACES:-lo})"
else
    echo "WARNING: cannot create a network namespace here (no unshare, or user namespaces disabled)."
    echo "         The app is offline by construction (no downloads, the renderer aborts every request),"
    echo "         but this run is NOT network-isolated. Run as root, or: sudo sysctl kernel.unprivileged_userns_clone=1"
    [[ "${REQUIRE_NETWORK_OFF:-0}" == 1 ]] && exit 1
fi

# --- a clean user: empty environment, fresh HOME, no venv on PATH --------------------------------
ENV=(env -i "HOME=$WORK/home" "USER=annotator" "PATH=/usr/bin:/bin" "LANG=C.UTF-8" "LC_ALL=C.UTF-8"
     "XDG_RUNTIME_DIR=$WORK/run" "QT_QPA_PLATFORM=offscreen" "TMPDIR=$WORK/run")
FAILED=0
fail() { echo "FAIL: $*"; FAILED=1; }

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

run_smoke() {  # $1: label
    local shot="$WORK/smoke-$1.png" out="$WORK/smoke-$1.out" t0 t1 rc=0 shown ok_at
    rm -f "$shot"
    t0=$(now)
    # each output line is stamped with the time it arrived
    set +e  # a failing app is reported below, not a reason to stop the script
    "${NET[@]}" "${ENV[@]}" "SCREENLAB_SMOKE_SCREENSHOT=$shot" "$APP" --smoke 2>"$out.err" \
        | while IFS= read -r line; do printf '%s %s\n' "$(now)" "$line"; done >"$out"
    rc=${PIPESTATUS[0]}
    set -e
    t1=$(now)
    sed 's/^[0-9.]* /  | /' "$out"
    [[ -s "$out.err" ]] && sed -n '1,20s/^/  ! /p' "$out.err"
    [[ $rc == 0 ]] || fail "$1 start: exit code $rc"
    grep -q "smoke: ok" "$out" || fail "$1 start: no 'smoke: ok' line"
    grep -q "project demo-project" "$out" || fail "$1 start: the demo project was not opened"
    [[ -s "$shot" && "$(head -c 8 "$shot" | od -An -tx1 | tr -d ' \n')" == "89504e470d0a1a0a" ]] \
        || fail "$1 start: no PNG screenshot at $shot"
    shown=$(awk '/smoke: window shown at/ { for (i = 1; i <= NF; i++) if ($i == "at") print $(i + 1) }' "$out" | sed -n 1p)
    ok_at=$(awk '/smoke: ok/ { print $1 }' "$out" | sed -n 1p)
    if [[ -n "$shown" ]]; then
        echo "  $1 start: window shown after $(elapsed "$t0" "$shown") s; smoke done after $(elapsed "$t0" "${ok_at:-$t1}") s; exited after $(elapsed "$t0" "$t1") s"
    else
        echo "  $1 start: 'smoke: ok' (window shown + painted + screenshot) after $(elapsed "$t0" "${ok_at:-$t1}") s; exited after $(elapsed "$t0" "$t1") s"
    fi
}

echo
echo "== first start (fresh user: creates and opens the demo project)"
run_smoke first
DEMO="$WORK/home/.local/share/ScreenLab/demo-project"
[[ -f "$DEMO/screenlab.sqlite" ]] && echo "  demo project created: ${DEMO#"$WORK"/}" || fail "no demo project in $DEMO"

echo
echo "== second start"
run_smoke second

echo
echo "== bundle self-check"
set +e
# the OCR of the first demo screens written for the comparison with the source tree below (none under SAME_AS)
DUMP=()
[[ -n "${SAME_AS:-}" ]] || DUMP=("SCREENLAB_OCR_DUMP=$WORK/bundle-ocr.json")
"${NET[@]}" "${ENV[@]}" "${DUMP[@]}" "$APP" --bundle-selfcheck 2>&1 | sed 's/^/  | /'
rc=${PIPESTATUS[0]}
set -e
[[ $rc == 0 ]] || fail "bundle self-check (exit code $rc)"

# The bundle's OCR against the source tree's, screen by screen at full precision: a library built our own way
# (RELEASE=1: OpenCV, numpy) or a model file bundled wrong must not change what OCR reads.
DEV_PYTHON="${SCREENLAB_DEV_PYTHON:-$ROOT/.venv/bin/python}"
if [[ -n "${SAME_AS:-}" ]]; then
    :  # the same files as SAME_AS, compared when it was tested (above)
elif [[ -f "$WORK/bundle-ocr.json" && -x "$DEV_PYTHON" ]]; then
    echo
    echo "== OCR of the first 6 demo screens: the bundle against the source tree ($DEV_PYTHON)"
    same=1
    (cd "$ROOT" && "$DEV_PYTHON" packaging/ocr_outputs.py dump "$WORK/source-ocr.json" --limit 6 >/dev/null &&
        "$DEV_PYTHON" packaging/ocr_outputs.py diff "$WORK/source-ocr.json" "$WORK/bundle-ocr.json") \
        >"$WORK/ocr-diff.txt" 2>&1 || same=0
    sed 's/^/  | /' "$WORK/ocr-diff.txt"
    [[ $same == 1 ]] || fail "the bundle's OCR differs from the source tree's (see above)"
else
    echo "  (OCR not compared with the source tree: no $DEV_PYTHON; set SCREENLAB_DEV_PYTHON)"
fi

if command -v xvfb-run >/dev/null && command -v xwininfo >/dev/null && [[ "${NO_X11:-0}" != 1 ]]; then
    echo
    echo "== start-up time on an X server (Xvfb, xcb plugin): launch -> main window mapped"
    # measured from outside: no app change needed; three starts, the first with a fresh user
    cat >"$WORK/measure.sh" <<'MEASURE'
#!/usr/bin/env bash
app=$1; home=$2; label=$3
t0=$(date +%s.%N)
env -i HOME="$home" USER=annotator PATH=/usr/bin:/bin LANG=C.UTF-8 DISPLAY="$DISPLAY" XAUTHORITY="$XAUTHORITY" \
    SCREENLAB_USER=annotator "$app" >"$home.out" 2>&1 &
pid=$!
for _ in $(seq 1 3000); do
    id=$(xwininfo -root -tree 2>/dev/null | awk '/ScreenLab": \("screenlab"/ && !id { id = $1 } END { print id }')
    if [[ -n "$id" ]] && xwininfo -id "$id" 2>/dev/null | grep IsViewable >/dev/null; then
        t1=$(date +%s.%N)
        awk -v a="$t0" -v b="$t1" -v l="$label" 'BEGIN { printf "  %s: main window mapped after %.2f s\n", l, b - a }'
        break
    fi
    kill -0 "$pid" 2>/dev/null || { echo "  $label: the app exited before showing a window"; cat "$home.out"; exit 1; }
    sleep 0.02
done
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
exit 0
MEASURE
    chmod +x "$WORK/measure.sh"
    # -noreset: Xvfb otherwise resets when its last client (the app just killed) leaves, and a start that
    # connects during the reset is refused ("could not connect to display"), which failed CI once
    # shellcheck disable=SC2016
    "${NET[@]}" xvfb-run -a -s "-screen 0 1600x1000x24 -noreset" sh -c \
        '"$0" "$1" "$2" "first start (fresh user, creates the demo project)" &&
         "$0" "$1" "$2" "second start" && "$0" "$1" "$2" "third start"' \
        "$WORK/measure.sh" "$APP" "$WORK/home-x11" || fail "start under Xvfb"
fi

# (3) the first screen painted, offscreen: the bundle and the source tree on the same machine, same project
if [[ -x "$DEV_PYTHON" && -z "${SAME_AS:-}" ]]; then
    echo
    echo "== start-up: launch -> first screen painted (offscreen; median of 3 after a warm-up start)"
    painted() {  # $1: label; the rest: the command. Prints the seconds, or nothing when no probe line came
        local t0 out
        t0=$(now)
        out=$("${NET[@]}" "${ENV[@]}" SCREENLAB_STARTUP_PROBE=1 SCREENLAB_USER=annotator "${@:2}" 2>/dev/null \
              | awk '/^startup-probe: painted/ && !t { sub(";", "", $3); t = $3 } END { if (t) print t }') || true
        [[ -n "$out" ]] && elapsed "$t0" "$out"
    }
    median() { grep . | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
    cp -a "$DEMO" "$WORK/probe-bundle"
    cp -a "$DEMO" "$WORK/probe-source"
    painted warm "$APP" gui "$WORK/probe-bundle" >/dev/null || true
    BUNDLE_S=$(for _ in 1 2 3; do painted bundle "$APP" gui "$WORK/probe-bundle"; echo; done | median)
    painted warm env "PYTHONPATH=$ROOT" "$DEV_PYTHON" -m desktop_app gui "$WORK/probe-source" >/dev/null || true
    SOURCE_S=$(for _ in 1 2 3; do painted source env "PYTHONPATH=$ROOT" "$DEV_PYTHON" -m desktop_app gui \
               "$WORK/probe-source"; echo; done | median)
    if [[ -n "$BUNDLE_S" && -n "$SOURCE_S" ]]; then
        RATIO=$(awk -v b="$BUNDLE_S" -v s="$SOURCE_S" 'BEGIN { printf "%.2f", b / s }')
        echo "  bundle: $BUNDLE_S s; source tree: $SOURCE_S s; bundle / source: ${RATIO}x (issue 38's aim: <= 1.5x)"
        echo "  load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
    else
        fail "start-up probe: no 'startup-probe: painted' line (bundle: '${BUNDLE_S}', source: '${SOURCE_S}')"
    fi
fi

LOGS="$WORK/home/.local/state/ScreenLab/log"
CRASHES=$(find "$LOGS" -name 'crash-*.log' 2>/dev/null | wc -l)
LEFT=$(find "$LOGS" -name 'faulthandler-*.log' 2>/dev/null | wc -l)
[[ $CRASHES == 0 ]] || { fail "$CRASHES crash log(s) written:"; find "$LOGS" -name 'crash-*.log' -exec cat {} \; | sed -n 1,60p; }
[[ $LEFT == 0 ]] || fail "faulthandler log(s) left behind (a hard crash?)"
# no telemetry (issue 38): ONNX Runtime would have made ~/.cache/Microsoft/DeveloperTools/.onnxruntime by now
for home in "$WORK/home" "$WORK/home-x11"; do
    [[ ! -e "$home/.cache/Microsoft" ]] || fail "a telemetry folder was made: $home/.cache/Microsoft"
done
echo
echo "== uninstall-data: the program removes what it wrote for this user"
set +e
"${NET[@]}" "${ENV[@]}" "$APP" uninstall-data --yes --projects 2>&1 | sed 's/^/  | /'
rc=${PIPESTATUS[0]}
set -e
[[ $rc == 0 ]] || fail "uninstall-data (exit code $rc)"
LEFT_DATA=$(find "$WORK/home" -name ScreenLab | sed -n 1,5p)
[[ -z "$LEFT_DATA" ]] || fail "uninstall-data left: $LEFT_DATA"
WRITTEN=$(find "$INSTALL_DIR" -newer "$WORK/installed.stamp" | sed -n 1,5p)
[[ -z "$WRITTEN" ]] || fail "the app wrote inside its installation folder: $WRITTEN"

echo
if [[ $FAILED == 0 ]]; then
    echo "smoke test: PASSED ($(du -sb "$INSTALL_DIR" | awk '{ printf "%.1f MB", $1 / 1048576 }') unpacked)"
else
    echo "smoke test: FAILED"
fi
exit $FAILED
