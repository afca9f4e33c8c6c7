# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Sourced by tests/vm/run-debian12 --systemd: fills $root (the initramfs) with
# this machine's Debian 12 systemd as PID 1 (the binaries and their libraries,
# found with ldd), busybox for the shell tools, rtf installed from $build with
# meson install --destdir (its prefix, its units), a policy, and a tiny unit
# set whose default target runs tests/vm/scenario-systemd.sh once.

# merged /usr, as on Debian 12: ldd's /lib paths land in /usr/lib
mkdir -p "$root"/usr/{bin,sbin,lib,lib64} "$root"/{dev,proc,sys,run,tmp,etc,var}
for d in bin sbin lib lib64; do ln -s usr/$d "$root/$d"; done
chmod 1777 "$root/tmp"
DESTDIR= meson install -C "$build" --no-rebuild --quiet --destdir "$root" >/dev/null ||
        { echo "RTFVM: meson install -C $build failed" >&2; exit 1; }
cp /bin/busybox "$root/usr/bin/"
cp "$(command -v setpriv)" "$(command -v systemctl)" "$(command -v systemd-cgls)" "$root/usr/bin/"
mkdir -p "$root/usr/lib/systemd/system" "$root/etc/systemd/system" "$root/usr/libexec/rtf"
cp /lib/systemd/systemd "$root/usr/lib/systemd/"
cp "$build/tests/integration/testclient" "$root/usr/libexec/rtf/"
for bin in "$root"/usr/bin/* "$root"/usr/lib/systemd/systemd "$root"/usr/libexec/rtf/* \
           "$root"/usr/local/sbin/* "$root"/usr/local/bin/* "$root"/usr/local/lib/*/rtf/plugins/*.so; do
        [ -f "$bin" ] && ! [ -L "$bin" ] || continue
        ldd "$bin" 2>/dev/null | awk '/=> \//{ print $3 } /^\t\/lib/{ print $1 }' || true   # busybox: static
done | grep -v librtf | sort -u | while read -r lib; do
        mkdir -p "$root$(dirname "$lib")"
        cp -L "$lib" "$root$lib"
done
for applet in $(/bin/busybox --list); do
        [ -e "$root/usr/bin/$applet" ] || ln -s busybox "$root/usr/bin/$applet"
done

printf 'root:x:0:0:root:/:/bin/sh\nrtfuser:x:1000:1000:rtf test user:/tmp:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\nrtfuser:x:1000:\n' > "$root/etc/group"
cp /etc/os-release "$root/etc/os-release"
# No journald in the VM: every unit's output goes to the console.
printf '[Manager]\nDefaultStandardOutput=tty\nDefaultStandardError=tty\n' > "$root/etc/systemd/system.conf"
cat > "$root/etc/rtf/rtfd.conf" <<CONF
EDF     EDF.so  100-100  1
RM      RM.so   50-89    0
CONF
cat > "$root/etc/rtf/acl.conf" <<ACL
rtfuser  EDF  max_utilization  0.5
rtfuser  RM   max_priority     89
ACL
for var in ASAN_OPTIONS UBSAN_OPTIONS; do
        [ -z "${!var:-}" ] || printf "export %s='%s'\n" "$var" "${!var}"
done > "$root/etc/rtf-vm.env"
# rtfd.service takes the sanitizer options from there too
if [ -s "$root/etc/rtf-vm.env" ]; then
        mkdir -p "$root/etc/systemd/system/rtfd.service.d"
        sed -n "s/^export \([A-Z_]*\)='\(.*\)'$/[Service]\nEnvironment=\"\1=\2\"/p" "$root/etc/rtf-vm.env" \
                > "$root/etc/systemd/system/rtfd.service.d/sanitizer.conf"
fi
cp "$src/scenario-systemd.sh" "$root/scenario"
cp "$src/checks.sh" "$root/checks.sh"
# the targets every unit's default dependencies name, from this machine
for unit in sysinit.target basic.target sockets.target paths.target timers.target slices.target \
            local-fs.target swap.target shutdown.target; do
        cp /lib/systemd/system/$unit "$root/usr/lib/systemd/system/"
done
cat > "$root/usr/lib/systemd/system/default.target" <<'UNIT'
[Unit]
Description=rtf VM scenario
Wants=rtf-vm.service
After=rtf-vm.service
UNIT
cat > "$root/usr/lib/systemd/system/rtf-vm.service" <<'UNIT'
[Unit]
Description=rtf VM scenario (tests/vm/scenario-systemd.sh)

[Service]
Type=oneshot
ExecStart=/bin/sh /scenario
StandardOutput=tty
StandardError=tty
UNIT
