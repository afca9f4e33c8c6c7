# SPDX-License-Identifier: LGPL-2.1-or-later
# What both VM scenarios (tests/vm/scenario.sh, scenario-systemd.sh) use, sourced
# from /checks.sh in the initramfs.  Every check prints one line
# "RTFVM CHECK <name> PASS|FAIL <detail>" on the console.

check() {       # name, condition (a shell test), detail
        if eval "$2"; then r=PASS; else r=FAIL; fi
        echo "RTFVM CHECK $1 $r $3"
}

policy_of() { sed -n 's/^policy *: *\([0-9]*\)$/\1/p' /proc/$1/sched; }
cpus_of() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$1/status; }
cgroup_of() { sed -n 's/^0:://p' /proc/$1/cgroup; }
json_num() { echo "$2" | sed -n "s/.*\"$1\": *\\(-*[0-9]*\\).*/\\1/p"; }

# The client: a testclient reading /tmp/cin (fd 3 here) and answering one JSON
# line per command in /tmp/cout; its pid in $CLIENT.
N=0
trap '' PIPE            # a client that died is a failed check, not the end of the scenario
# ask [-w TENTHS] COMMAND: one request, its answer in $ANSWER (30 s unless -w)
ask() {
        limit=300
        if [ "$1" = -w ]; then limit=$2; shift 2; fi
        echo "$*" >&3
        N=$((N + 1))
        i=0
        # /tmp/cout is created by the client's redirection, which the shell
        # makes only after the FIFO's writer (fd 3) opened: it may not exist yet.
        while [ "$(cat /tmp/cout 2>/dev/null | wc -l)" -lt $N ] && [ $i -lt $limit ] &&
                kill -0 $CLIENT 2>/dev/null; do
                sleep 0.1
                i=$((i + 1))
        done
        ANSWER=$(sed -n "${N}p" /tmp/cout)
        echo "RTFVM client> $* => $ANSWER"
}

# The EDF specification both scenarios start with: thread t of the client,
# admitted on CPU 1 (the partition $PART under $CG), attached, SCHED_DEADLINE,
# pinned and in the partition.  Its tid is left in $TID.
check_edf_attached() {
        ask thread t
        TID=$(json_num tid "$ANSWER")
        ask create e period=100000 runtime=10000 deadline=80000
        check edf_admitted "[ \"\$(json_num result '$ANSWER')\" = 0 ] && [ \"\$(json_num cpu '$ANSWER')\" = 1 ]" "$ANSWER"
        ask attach e thread:t
        check edf_attached "[ \"\$(json_num result '$ANSWER')\" = 0 ]" "$ANSWER"
        check edf_sched_deadline "[ \"\$(policy_of $TID)\" = 6 ]" "policy $(policy_of $TID)"
        check edf_pinned "[ \"\$(cpus_of $TID)\" = 1 ]" "cpus $(cpus_of $TID)"
        check edf_in_partition "[ \"$CG\$(cgroup_of $TID)\" = '$PART' ]" "cgroup $(cgroup_of $TID)"
}

# Before the crash of both scenarios: the client reconnects to the restarted
# rtfd and thread t ($TID) is SCHED_DEADLINE again, under spec e2.
check_crash_setup() {
        ask disconnect          # the connection to the stopped rtfd
        ask connect
        ask create e2 period=100000 runtime=10000 deadline=80000
        ask attach e2 thread:t
        check crash_setup "[ \"\$(json_num result '$ANSWER')\" = 0 ] && [ \"\$(policy_of $TID)\" = 6 ]" \
                "policy $(policy_of $TID), cgroup $(cgroup_of $TID)"
}
