#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job, end to end: install what is needed, build, start rtfd with
# its default configuration, admit a real periodic task through it (Listing 1
# of the ReTiF paper), show what rtfd granted and what the kernel applied,
# and stop rtfd.  Needs root (rtfd applies real-time policies).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}

scripts/install-deps.sh
if [[ ! -f $build/build.ninja ]]; then
    meson setup "$build" >/dev/null
fi
echo "# building in $build"
meson compile -C "$build" >/dev/null

run=$(mktemp -d /tmp/rtf-demo.XXXXXX)
export RTF_SOCKET=$run/rtfd.sock
rtfd_pid=
cleanup() {
    if [[ -n $rtfd_pid ]] && kill -0 "$rtfd_pid" 2>/dev/null; then
        kill -TERM "$rtfd_pid"
        wait "$rtfd_pid" || true
    fi
    rm -rf "$run"
}
trap cleanup EXIT

echo "# starting rtfd with the built-in default configuration"
"$build/src/daemon/rtfd" --default-config --socket "$RTF_SOCKET" \
    --plugindir "$build/plugins" --foreground 2>"$run/rtfd.log" &
rtfd_pid=$!
for _ in $(seq 100); do [[ -S $RTF_SOCKET ]] && break; sleep 0.05; done
sed 's/^/  | /' "$run/rtfd.log"

echo
echo "# rtfctl status"
"$build/src/ctl/rtfctl" status

echo
echo "# a periodic task (Listing 1 of the paper: T = 10 ms, Q = 1 ms, Qd = 2 ms) admitted through rtfd"
"$build/examples/listing1" 100 &
task=$!
sleep 0.3
echo
echo "# rtfctl tasks (while the task runs)"
"$build/src/ctl/rtfctl" tasks
wait "$task"
rc=$?

kill -TERM "$rtfd_pid"
wait "$rtfd_pid" || true
rtfd_pid=
echo
echo "# rtfd's log"
sed 's/^/  | /' "$run/rtfd.log"
exit $rc
