#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The point of rtf, end to end: an UNPRIVILEGED user gets a real-time
# reservation because the administrator's policy allows it, and only that.
# Installs what is needed, builds, creates the user rtf-demo (no home, no
# shell; left on the machine, as the tests' users are), starts rtfd with its
# default configuration and a one-line policy, runs a real periodic task
# (Listing 1 of the ReTiF paper) as rtf-demo, and shows what rtfd granted
# and what the kernel applied; then a second such task, which would exceed
# the policy, refused.  Run as root (rtfd applies real-time policies).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
user=rtf-demo

scripts/install-deps.sh
if [[ ! -f $build/build.ninja ]]; then
    meson setup "$build" >/dev/null
fi
echo "# building in $build"
meson compile -C "$build" >/dev/null

getent passwd "$user" >/dev/null || useradd -M -U -s /usr/sbin/nologin "$user"
as_user=(setpriv "--reuid=$user" "--regid=$user" --init-groups)

# A directory the user can reach: the socket, and the program with its
# library (the build tree may sit in root's 0700 home).
run=$(mktemp -d /tmp/rtf-demo.XXXXXX)
chmod 0755 "$run"
cp -P "$build/examples/listing1" "$build/src/lib/librtf.so.1" "$build/src/lib/librtf.so.1.0.0" "$run/"
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

# The administrator's policy (rtf-acl.conf(5)): rtf-demo may hold EDF
# reservations of up to 25 % of a CPU in total, nothing else.
cat >"$run/acl.conf" <<POLICY
$user  EDF  max_utilization  0.25
POLICY
echo "# the policy ($run/acl.conf)"
sed 's/^/  | /' "$run/acl.conf"

echo
echo "# starting rtfd with the built-in default configuration and that policy"
"$build/src/daemon/rtfd" --default-config --acl "$run/acl.conf" --socket "$RTF_SOCKET" \
    --plugindir "$build/plugins" --foreground 2>"$run/rtfd.log" &
rtfd_pid=$!
for _ in $(seq 100); do [[ -S $RTF_SOCKET ]] && break; sleep 0.05; done

as_task() {
    "${as_user[@]}" env LD_LIBRARY_PATH="$run" RTF_SOCKET="$RTF_SOCKET" "$run/listing1" "$@"
}

echo
echo "# as $user (uid $(id -u "$user"), no privileges): a periodic task, T = 10 ms, Q = 1 ms, Qd = 2 ms"
"${as_user[@]}" env LD_LIBRARY_PATH="$run" RTF_SOCKET="$RTF_SOCKET" "$run/listing1" 100 >"$run/task.out" &
task=$!                         # listing1 itself: setpriv and env exec it
sleep 0.3
echo "# what the kernel applied to it (chrt -p $task; SCHED_RESET_ON_FORK: its children start as"
echo "# ordinary threads, so mask it before comparing sched_getscheduler() with SCHED_DEADLINE)"
chrt -p "$task" 2>&1 | sed 's/^/  | /' || true
echo "# rtfctl tasks"
"$build/src/ctl/rtfctl" tasks | sed 's/^/  | /' || true
echo "# meanwhile, a second such task of $user: 2 x 0.2 CPU is more than the policy's 0.25"
rc=0
if as_task 10 >"$run/second.out"; then
    rc=1                        # admitted: the policy did not hold
fi
sed 's/^/  | /' "$run/second.out"
wait "$task" || rc=$?
echo "# what rtfd granted the first and how it ran (its own output)"
sed 's/^/  | /' "$run/task.out"

kill -TERM "$rtfd_pid"
wait "$rtfd_pid" || true
rtfd_pid=
echo
echo "# rtfd's audit lines: every grant and refusal, by the uid the kernel reported"
grep 'audit:' "$run/rtfd.log" | sed 's/^/  | /'
exit $rc
