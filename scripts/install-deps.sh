#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install what building and testing rtf needs, from Debian's packages.
set -euo pipefail

packages=(
    meson ninja-build gcc clang libclang-rt-14-dev pkg-config  # build, fuzzers, sanitizers
    libjson-c-dev                     # JSON output of rtfctl and the tools
    python3 python3-pytest            # integration tests
    rt-tests stress-ng                # real peers and load (cyclictest)
    python3-matplotlib                # --plot of rtf-latency, rtf-bench and rtf-budget
    util-linux procps                 # setpriv, runuser, ps
    qemu-system-x86                   # boots the bare-machine image (rtf-bare) in its tests
    grub-pc-bin xorriso mtools isolinux syslinux-common  # ... and through GRUB and ISOLINUX
    bash-completion man-db binutils   # test_install.py: completion, man pages, readelf
    rtl-433 ncat                      # rtf-nexa's real peers: decoder of its recordings, network pipe
    libgpiod-dev                      # rtf-nexa's GPIO backend (built when found)
    busybox-static cpio               # tests/vm/run-debian12: Debian 12's kernel in a VM (with qemu)
    systemd                           # tests/vm/run-debian12 --systemd: its systemd 252 is PID 1 in the VM
)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    if [[ $(id -u) -ne 0 ]]; then
        echo "install-deps: need root to install: ${missing[*]}" >&2
        exit 1
    fi
    echo "# installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
