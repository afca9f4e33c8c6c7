#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs as /scenario inside the Debian 12 VM (tests/vm/run-debian12 builds the
# initramfs): rtfd on a cgroup2-only machine, an unprivileged client, and what
# the kernel says.  Every check prints one line "RTFVM CHECK <name> PASS|FAIL
# <detail>" on the console, which tests/integration/test_debian12_vm.py parses.

RTF=/rtf
SOCK=/run/rtfd.sock
CG=/sys/fs/cgroup
USER_UID=1000
export LD_LIBRARY_PATH=$RTF/lib
[ -f /etc/rtf-vm.env ] && . /etc/rtf-vm.env     # ASAN_OPTIONS, UBSAN_OPTIONS of the host

. /checks.sh     # check, policy_of, cpus_of, cgroup_of, json_num, ask, check_edf_attached,
                 # check_crash_setup (tests/vm/checks.sh)

echo                    # the console line may start with the firmware's escape codes
echo "RTFVM KERNEL $(uname -r) $(cat /proc/version)"
echo "RTFVM CGROUP $(cat $CG/cgroup.controllers)"

cat > /etc/rtfd.conf <<CONF
EDF     EDF.so  100-100  1
RM      RM.so   50-89    0
CONF
cat > /etc/rtf-acl.conf <<ACL
rtfuser  EDF  max_utilization  0.5
rtfuser  RM   max_priority     89
ACL

$RTF/bin/rtfd --socket $SOCK --plugindir $RTF/plugins --config /etc/rtfd.conf --acl /etc/rtf-acl.conf \
        --foreground -v > /tmp/rtfd.log 2>&1 &
RTFD=$!
i=0
while [ ! -S $SOCK ] && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
check rtfd_started "[ -S $SOCK ]" "socket after $((i * 200)) ms"
check log_says_cgroup_v2 "grep -q 'cgroup v2' /tmp/rtfd.log" "$(grep -m1 'cpusets:' /tmp/rtfd.log)"
PART=$(ls -d $CG/rtf-cpu1 $CG/rtf/cpu1 2>/dev/null | head -n1)
check partition_exists "[ -n '$PART' ]" "${PART:-none}"
check partition_is_root "[ \"\$(cat $PART/cpuset.cpus.partition 2>/dev/null)\" = root ]" \
        "$(cat $PART/cpuset.cpus.partition 2>/dev/null)"
check partition_cpu "[ \"\$(cat $PART/cpuset.cpus.effective 2>/dev/null)\" = 1 ]" \
        "effective $(cat $PART/cpuset.cpus.effective 2>/dev/null)"

# The client: an unprivileged user driving tests/integration/testclient.
mkfifo /tmp/cin
# in a cgroup of its own, as under systemd's user.slice: it has to come back there
mkdir $CG/user.slice
sh -c "echo \$\$ > $CG/user.slice/cgroup.procs && exec $RTF/bin/setpriv --reuid=$USER_UID --regid=$USER_UID \
        --clear-groups env RTF_SOCKET=$SOCK RTF_TIMEOUT_MS=20000 $RTF/bin/testclient" < /tmp/cin > /tmp/cout 2> /tmp/cerr &
CLIENT=$!
exec 3> /tmp/cin
# The client's start (an ASan build under TCG maps its shadow memory slowly)
# took more than 30 s once: the first answer gets two minutes.
ask -w 1200 connect
check client_connected "[ \"\$(json_num result '$ANSWER')\" = 0 ] && [ \"\$(cgroup_of $CLIENT)\" = /user.slice ]" "as uid $(sed -n 's/^Uid:[[:space:]]*//p' /proc/$CLIENT/status)"
ORIGIN=$(cgroup_of $CLIENT)

check_edf_attached
check edf_partition_still_root "[ \"\$(cat $PART/cpuset.cpus.partition)\" = root ]" \
        "$(cat $PART/cpuset.cpus.partition)"
check edf_process_not_pinned "[ \"\$(cpus_of $CLIENT)\" = 0 ] && [ \"\$(cgroup_of $CLIENT)\" != '$ORIGIN' ]" \
        "process $(cgroup_of $CLIENT), cpus $(cpus_of $CLIENT)"

ask thread f
FTID=$(json_num tid "$ANSWER")
ask create r period=50000 runtime=5000 plugin=RM
check rm_admitted "[ \"\$(json_num result '$ANSWER')\" = 0 ]" "$ANSWER"
ask attach r thread:f
check rm_attached "[ \"\$(json_num result '$ANSWER')\" = 0 ]" "$ANSWER"
check rm_sched_fifo "[ \"\$(policy_of $FTID)\" = 1 ]" "policy $(policy_of $FTID)"
check rm_pinned "[ \"\$(cpus_of $FTID)\" = 0 ]" "cpus $(cpus_of $FTID)"

# A thread that exits while its process lives: rtfd must let go of it, so
# that the specification takes another thread.
ask thread x
ask create x period=100000 runtime=10000 deadline=80000
ask attach x thread:x
ask exit x
ask thread y
YTID=$(json_num tid "$ANSWER")
tries=0
while :; do
        ask attach x thread:y
        if [ "$(json_num result "$ANSWER")" = 0 ] || [ $tries -ge 20 ]; then break; fi
        sleep 0.5
        tries=$((tries + 1))
done
check exited_thread_let_go "[ \"\$(json_num result '$ANSWER')\" = 0 ] && [ \"\$(policy_of $YTID)\" = 6 ]" \
        "after $tries retries: $ANSWER"

kill -TERM $RTFD
wait $RTFD
RC=$?
check rtfd_stopped "[ $RC = 0 ]" "exit status $RC"
check partitions_gone "! ls -d $CG/rtf-cpu* $CG/rtf >/dev/null 2>&1" "$(ls -d $CG/rtf* 2>/dev/null | tr '\n' ' ')"
check edf_demoted "[ \"\$(policy_of $TID)\" = 0 ] && [ \"\$(cpus_of $TID)\" = 0-1 ]" \
        "policy $(policy_of $TID), cpus $(cpus_of $TID)"
check rm_demoted "[ \"\$(policy_of $FTID)\" = 0 ] && [ \"\$(cpus_of $FTID)\" = 0-1 ]" \
        "policy $(policy_of $FTID), cpus $(cpus_of $FTID)"
check thread_back_in_origin "[ -n '$ORIGIN' ] && [ \"\$(cgroup_of $TID)\" = '$ORIGIN' ]" "cgroup $(cgroup_of $TID), was $ORIGIN"
check process_back_in_origin "[ -n '$ORIGIN' ] && [ \"\$(cgroup_of $CLIENT)\" = '$ORIGIN' ]" "cgroup $(cgroup_of $CLIENT)"
check subtree_restored "[ -z \"\$(cat $CG/cgroup.subtree_control)\" ]" "subtree_control '$(cat $CG/cgroup.subtree_control)'"

# A crash: rtfd killed while the thread is SCHED_DEADLINE in a partition; the
# next rtfd removes the stale partition and demotes the thread (its journal).
start_rtfd() {
        rm -f $SOCK
        $RTF/bin/rtfd --socket $SOCK --plugindir $RTF/plugins --config /etc/rtfd.conf --acl /etc/rtf-acl.conf \
                --foreground -v >> /tmp/rtfd.log 2>&1 &
        RTFD=$!
        i=0
        while [ ! -S $SOCK ] && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
}
start_rtfd
check_crash_setup
kill -KILL $RTFD
wait $RTFD
check crash_left_partition "[ -d $PART ] && [ \"\$(policy_of $TID)\" = 6 ]" "policy $(policy_of $TID)"
start_rtfd
check crash_recovered_demoted "[ \"\$(policy_of $TID)\" = 0 ] && grep -q 'orphaned real-time thread' /tmp/rtfd.log" \
        "policy $(policy_of $TID); $(grep -m1 'orphaned' /tmp/rtfd.log)"
check crash_recovered_partition "[ \"\$(cat $PART/cpuset.cpus.partition 2>/dev/null)\" = root ] && \
        [ \"$CG\$(cgroup_of $TID)\" != '$PART' ]" "partition $(cat $PART/cpuset.cpus.partition 2>/dev/null), thread in $(cgroup_of $TID)"
kill -TERM $RTFD
wait $RTFD
check crash_final_stop "[ $? = 0 ] && ! ls -d $CG/rtf-cpu* $CG/rtf >/dev/null 2>&1" "$(ls -d $CG/rtf* 2>/dev/null | tr '\n' ' ')"

ask quit
exec 3>&-
wait $CLIENT
# a build with -Db_sanitize=address,undefined reports on stderr
check no_sanitizer_reports "! grep -q -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' -e 'runtime error:' \
        /tmp/rtfd.log /tmp/cerr" "$(grep -h -m1 -e Sanitizer -e 'runtime error:' /tmp/rtfd.log /tmp/cerr)"
sed 's/^/RTFVM rtfd.log: /' /tmp/rtfd.log
sed 's/^/RTFVM client stderr: /' /tmp/cerr
echo "RTFVM DONE"
