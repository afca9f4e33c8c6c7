#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs as /scenario inside the Debian 12 VM with systemd as PID 1, started by
# rtf-vm.service (tests/vm/systemd-initramfs.sh): rtfd.service as installed
# (Delegate=cpuset, KillMode=process) started and stopped with systemctl, an
# unprivileged client, and what the kernel says.  Every check prints one line
# "RTFVM CHECK <name> PASS|FAIL <detail>" on the console, which
# tests/integration/test_debian12_systemd.py parses.

SOCK=/run/rtf/rtfd.sock
CG=/sys/fs/cgroup
UNIT_CG=$CG/system.slice/rtfd.service
PART=$UNIT_CG/rtf/cpu1
USER_UID=1000
[ -f /etc/rtf-vm.env ] && . /etc/rtf-vm.env     # ASAN_OPTIONS, UBSAN_OPTIONS of the host

. /checks.sh     # check, policy_of, cpus_of, cgroup_of, json_num, ask, check_edf_attached,
                 # check_crash_setup (tests/vm/checks.sh)
show() { systemctl show -P "$2" "$1"; }

echo                    # the console line may start with the firmware's escape codes
echo "RTFVM KERNEL $(uname -r) $(cat /proc/version)"
echo "RTFVM SYSTEMD $(systemctl --version | head -n1)"
check pid1_is_systemd "[ \"\$(cat /proc/1/comm)\" = systemd ]" "$(cat /proc/1/comm)"
check cgroup_v2_only "grep -q '^0::/' /proc/self/cgroup && [ \"\$(wc -l < /proc/self/cgroup)\" = 1 ]" \
        "$(cat /proc/self/cgroup)"
ORIGIN=$(cgroup_of $$)

systemctl start rtfd.service
check rtfd_active "[ \"\$(show rtfd.service ActiveState)\" = active ]" \
        "$(show rtfd.service ActiveState) $(show rtfd.service SubState), MainPID $(show rtfd.service MainPID)"
RTFD=$(show rtfd.service MainPID)
check rtfd_in_its_unit "[ \"\$(cgroup_of $RTFD)\" = /system.slice/rtfd.service/daemon ]" "cgroup $(cgroup_of $RTFD)"
check unit_delegates_cpuset "[ \"\$(show rtfd.service Delegate)\" = yes ] && \
        [ \"\$(show rtfd.service DelegateControllers)\" = cpuset ]" \
        "Delegate=$(show rtfd.service Delegate) DelegateControllers=$(show rtfd.service DelegateControllers)"
check socket_activated "[ -S $SOCK ] && [ \"\$(show rtfd.socket ActiveState)\" = active ]" \
        "rtfd.socket $(show rtfd.socket ActiveState)"
check partition_below_unit "[ -d $PART ]" "$(ls -d $CG/rtf* $UNIT_CG/rtf/* 2>/dev/null | tr '\n' ' ')"
check partition_is_root "[ \"\$(cat $PART/cpuset.cpus.partition 2>/dev/null)\" = root ]" \
        "$(cat $PART/cpuset.cpus.partition 2>/dev/null)"
check partition_cpu "[ \"\$(cat $PART/cpuset.cpus.effective 2>/dev/null)\" = 1 ]" \
        "effective $(cat $PART/cpuset.cpus.effective 2>/dev/null)"
check slice_hands_down_cpu "[ \"\$(cat $CG/system.slice/cpuset.cpus.exclusive 2>/dev/null)\" = 1 ]" \
        "system.slice cpuset.cpus.exclusive '$(cat $CG/system.slice/cpuset.cpus.exclusive 2>/dev/null)'"
check nothing_at_the_top "! ls -d $CG/rtf $CG/rtf-cpu* >/dev/null 2>&1" "$(ls -d $CG/rtf* 2>/dev/null | tr '\n' ' ')"

# The client (util-linux's setpriv by path: busybox sh prefers its own applet):
# an unprivileged user driving tests/integration/testclient, in
# this unit's cgroup (rtf-vm.service), where it has to come back to.
mkfifo /tmp/cin
LIBDIR=$(dirname /usr/local/lib/*/librtf.so.1)  # the build tree's testclient, the installed librtf
/usr/bin/setpriv --reuid=$USER_UID --regid=$USER_UID --clear-groups env RTF_SOCKET=$SOCK RTF_TIMEOUT_MS=20000 \
        LD_LIBRARY_PATH=$LIBDIR \
        /usr/libexec/rtf/testclient < /tmp/cin > /tmp/cout 2> /tmp/cerr &
CLIENT=$!
exec 3> /tmp/cin
ask -w 1200 connect
check client_connected "[ \"\$(json_num result '$ANSWER')\" = 0 ] && [ \"\$(cgroup_of $CLIENT)\" = '$ORIGIN' ]" \
        "as uid $(sed -n 's/^Uid:[[:space:]]*//p' /proc/$CLIENT/status), cgroup $(cgroup_of $CLIENT)"

check_edf_attached
check edf_process_in_unit "[ \"\$(cgroup_of $CLIENT)\" = /system.slice/rtfd.service/rtf ] && [ \"\$(cpus_of $CLIENT)\" = 0 ]" \
        "process $(cgroup_of $CLIENT), cpus $(cpus_of $CLIENT)"

# What the administrator sees.
systemctl status --no-pager rtfd.service > /tmp/status 2>&1
sed 's/^/RTFVM status: /' /tmp/status
check status_shows_client "grep -q 'rtf/' /tmp/status && grep -q testclient /tmp/status" \
        "$(grep -m1 testclient /tmp/status)"
systemd-cgls --no-pager $CG/system.slice > /tmp/cgls 2>&1
sed 's/^/RTFVM cgls: /' /tmp/cgls
check cgls_shows_partition "grep -q 'rtf' /tmp/cgls && grep -q testclient /tmp/cgls" "$(grep -c . /tmp/cgls) lines"

systemctl stop rtfd.service
check rtfd_inactive "[ \"\$(show rtfd.service ActiveState)\" = inactive ]" \
        "$(show rtfd.service ActiveState) $(show rtfd.service Result)"
check partitions_gone "[ ! -d $UNIT_CG/rtf ] && ! ls -d $CG/rtf $CG/rtf-cpu* >/dev/null 2>&1" \
        "$(ls -d $UNIT_CG/rtf* $CG/rtf* 2>/dev/null | tr '\n' ' ')"
check unit_cgroup_removed "[ ! -d $UNIT_CG ]" "$(ls $UNIT_CG 2>&1 | head -n3 | tr '\n' ' ')"
check client_survived "kill -0 $CLIENT" "KillMode=process"
check edf_demoted "[ \"\$(policy_of $TID)\" = 0 ] && [ \"\$(cpus_of $TID)\" = 0-1 ]" \
        "policy $(policy_of $TID), cpus $(cpus_of $TID)"
check process_back_in_origin "[ \"\$(cgroup_of $CLIENT)\" = '$ORIGIN' ] && [ \"\$(cgroup_of $TID)\" = '$ORIGIN' ]" \
        "process $(cgroup_of $CLIENT), thread $(cgroup_of $TID), was $ORIGIN"
check exclusive_cleared "[ -z \"\$(cat $CG/system.slice/cpuset.cpus.exclusive 2>/dev/null)\" ]" \
        "system.slice cpuset.cpus.exclusive '$(cat $CG/system.slice/cpuset.cpus.exclusive 2>/dev/null)'"

# A crash: rtfd killed while the thread is SCHED_DEADLINE in its partition.
# systemd cannot start rtfd in rtfd.service while the client's process is in
# rtfd.service/rtf (status=219/CGROUP); rtfd-recover.service (OnFailure=)
# moves it to the root cgroup and starts rtfd, which demotes the thread.
systemctl start rtfd.service
check_crash_setup
RTFD=$(show rtfd.service MainPID)
systemctl kill --kill-who=main -s KILL rtfd.service
i=0
while [ "$(show rtfd.service MainPID)" = "$RTFD" ] || [ "$(show rtfd.service MainPID)" = 0 ] ||
      [ "$(show rtfd.service ActiveState)" != active ]; do
        [ $i -lt 150 ] || break
        sleep 0.2
        i=$((i + 1))
done
check crash_restarted "[ \"\$(show rtfd.service ActiveState)\" = active ] && [ \"\$(show rtfd.service MainPID)\" != $RTFD ]" \
        "after $((i * 200)) ms: $(show rtfd.service ActiveState) $(show rtfd.service SubState), rtfd-recover.service $(show rtfd-recover.service Result)"
check crash_recovered_demoted "[ \"\$(policy_of $TID)\" = 0 ]" "policy $(policy_of $TID)"
check crash_recovered_partition "[ \"\$(cat $PART/cpuset.cpus.partition 2>/dev/null)\" = root ] && \
        [ \"\$(cgroup_of $CLIENT)\" = / ] && [ \"\$(cgroup_of $TID)\" = / ]" \
        "partition $(cat $PART/cpuset.cpus.partition 2>/dev/null), process in $(cgroup_of $CLIENT), thread in $(cgroup_of $TID)"
systemctl stop rtfd.service
check crash_final_stop "[ \"\$(show rtfd.service ActiveState)\" = inactive ] && [ ! -d $UNIT_CG ] && \
        [ -z \"\$(cat $CG/system.slice/cpuset.cpus.exclusive 2>/dev/null)\" ]" \
        "$(show rtfd.service ActiveState), $(ls -d $UNIT_CG 2>/dev/null)"

ask quit
exec 3>&-
wait $CLIENT
check no_sanitizer_reports "! grep -q -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' -e 'runtime error:' \
        /tmp/cerr" "$(grep -h -m1 -e Sanitizer -e 'runtime error:' /tmp/cerr)"
sed 's/^/RTFVM client stderr: /' /tmp/cerr
echo "RTFVM DONE"
poweroff -f
