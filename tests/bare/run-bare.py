#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Boot rtf-bare in QEMU and check what it says: run-bare.py BUILD_DIR CASE [IMAGE]

IMAGE is rtf-bare (i386, the default, in qemu-system-i386) or rtf-bare64
(x86-64, in qemu-system-x86_64).  CASE is one of: self, latency, overflow, fpu-misuse, pit, usage, size, grub,
syslinux (the last two boot it from a CD image made with the real loader).  QEMU
runs headless with a fixed instruction count (-icount shift=3,sleep=off: every
guest instruction takes 8 ns of guest time, an idle guest skips ahead), so a
run is the same to the byte every time.  shift=auto is not: it adapts the
guest's speed to the host's, and on a loaded machine the same one-shot run
gave an average latency of 4 us once and 84 us the next.  No case asserts an
absolute time.  Exits 0 on success, 1 on failure, 77 (skipped) without the image or its QEMU."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

QEMU_ARGS = ["-display", "none", "-serial", "stdio", "-monitor", "none", "-no-reboot", "-nic", "none",
             "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04", "-icount", "shift=3,sleep=off"]
QEMU = {"rtf-bare": "qemu-system-i386", "rtf-bare64": "qemu-system-x86_64"}
# The limits both images are held to (the paper's: ~122 KiB image, ~370 KiB in memory).
IMAGE_MAX_BYTES = 48 * 1024
MEMORY_MAX_BYTES = 128 * 1024


def fail(msg, log=""):
    sys.stderr.write(log)
    sys.exit(f"FAIL: {msg}")


def skip(why):
    print(f"SKIP: {why}")
    sys.exit(77)


def boot(image, append, memory_mib=None, timeout=60, cdrom=None):
    name = QEMU[os.path.basename(image)]
    qemu = shutil.which(name)
    if not qemu:
        skip(f"{name} is not installed (scripts/install-deps.sh installs qemu-system-x86)")
    cmd = [qemu] + (["-cdrom", cdrom] if cdrom else ["-kernel", image, "-append", append]) + QEMU_ARGS
    if memory_mib:
        cmd += ["-m", str(memory_mib)]
    print("#", " ".join(cmd))
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        fail(f"QEMU did not exit within {timeout} s", (e.stdout or b"").decode(errors="replace"))
    out = p.stdout.decode(errors="replace").replace("\r\n", "\n")
    # isa-debug-exit: QEMU's status is (value << 1) | 1
    value = p.returncode >> 1 if p.returncode & 1 else None
    return out, value


def memory_line(out):
    m = re.search(r"^memory (.*)$", out, re.M)
    if not m:
        return None
    return {k: int(v) for k, v in (kv.split("=") for kv in m.group(1).split())}


def case_self(image):
    # In 2 MiB of RAM (QEMU's BIOS needs some of it): the paper's 'less than 1 MiB' is for the image itself.
    out, value = boot(image, "test=self", memory_mib=2)
    print(out)
    if "rtf-bare: booted (16-bit entry)" not in out:
        fail("QEMU -kernel: not booted through the 16-bit entry")
    arch = "x86-64" if image.endswith("64") else "i386"
    if f"rtf-bare: booted (16-bit entry) on {arch}," not in out:
        fail(f"self-test: the image does not say it runs as {arch}")
    oks = len(re.findall(r"^ok - ", out, re.M))
    bad = re.findall(r"^not ok - .*$", out, re.M)
    if value != 0 or bad or oks < 25:
        fail(f"self-test: exit value {value}, {oks} ok, failed: {bad}")
    for what in ("periodic: a 2.5-period job overruns", "budget: the wait calls of exhausted periods are ignored",
                 "delete: a task deletes another", "semaphore: the higher-priority waiter first",
                 "mailbox: 100 messages", "periodic mode: 10 releases", "fpu: an FPU task preempted mid-computation"):
        if f"ok - {what}" not in out:
            fail(f"self-test: no '{what}'")


def latency_records(out):
    return [json.loads(line[len("latency "):]) for line in out.splitlines() if line.startswith("latency {")]


def case_latency(image):
    out, value = boot(image, "test=latency samples=5000", timeout=80)
    print(out)
    recs = latency_records(out)
    if value != 0:
        fail(f"latency: exit value {value}")
    got = {(r["timer"], r["load"]) for r in recs}
    want = {(t, l) for t in ("oneshot", "periodic") for l in ("idle", "cpu")}
    if got != want:
        fail(f"latency: runs {sorted(got)}, wanted {sorted(want)}")
    for r in recs:
        if r["samples"] != 5000 or sum(c for _, c in r["histogram_ns"]) + r["below"] + r["above"] != 5000:
            fail(f"latency: {r['timer']}/{r['load']}: {r['samples']} samples, histogram does not add up")
        if not r["min_ns"] <= r["avg_ns"] <= r["max_ns"] or not r["min_ns"] <= r["p99_ns"] <= r["max_ns"]:
            fail(f"latency: {r['timer']}/{r['load']}: min/avg/p99/max out of order")
        if r["timer"] and r["load"] == "cpu" and r["load_loops"] == 0:
            fail("latency: the CPU load task never ran")
    # Information only (guest time under -icount is not real time), through the tool the docs use.
    plot = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "plot", "plot-bare.py")
    with tempfile.NamedTemporaryFile("w", suffix=".log") as log:
        log.write(out)
        log.flush()
        p = subprocess.run([sys.executable, plot, "--table", log.name], stdout=subprocess.PIPE, text=True)
    print(p.stdout)
    if p.returncode != 0 or len(p.stdout.splitlines()) != 5:
        fail("latency: tools/plot/plot-bare.py --table did not read the four runs")


def case_fault(image, test, reason):
    out, value = boot(image, f"test={test}")
    print(out)
    if value != 2:
        fail(f"{test}: exit value {value}, wanted 2 (panic)")
    if not re.search(r"^PANIC: task '(deep|nofpu)' \(priority 10\): " + reason, out, re.M):
        fail(f"{test}: no panic naming the task and '{reason}'")


def case_pit(image):
    out, value = boot(image, "test=self clock=pit")
    print(out)
    if "timer=pit" not in out or value != 0 or "not ok" in out:
        fail(f"pit: exit value {value}")


def case_usage(image):
    out, value = boot(image, "test=nonsense")
    print(out)
    if value != 3 or 'bad option "test=nonsense"' not in out:
        fail(f"usage: exit value {value}")


def check_loader_boot(out, value, entry, loader):
    print(out)
    if f"rtf-bare: booted ({entry}-bit entry)" not in out:
        fail(f"{loader}: not booted through the {entry}-bit entry")
    if "test=self" not in out or value != 0 or "not ok" in out or "ok - budget: enforced" not in out:
        fail(f"{loader}: exit value {value}")


def case_grub(image):
    """GRUB's `linux` command: the 32-bit boot protocol (startup_32 with %esi = boot_params)."""
    mkrescue = shutil.which("grub-mkrescue")
    if not mkrescue or not shutil.which("xorriso") or not os.path.isdir("/usr/lib/grub/i386-pc"):
        skip("grub-mkrescue, xorriso or grub-pc-bin missing (scripts/install-deps.sh installs them)")
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "iso", "boot", "grub"))
        shutil.copy(image, os.path.join(d, "iso", "rtf-bare"))
        with open(os.path.join(d, "iso", "boot", "grub", "grub.cfg"), "w") as f:
            f.write("set timeout=0\nmenuentry rtf-bare {\n  linux /rtf-bare test=self\n  boot\n}\n")
        iso = os.path.join(d, "grub.iso")
        p = subprocess.run([mkrescue, "-o", iso, os.path.join(d, "iso")], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            fail("grub-mkrescue failed", p.stdout)
        out, value = boot(image, None, cdrom=iso)
    check_loader_boot(out, value, 32, "grub")


def case_syslinux(image):
    """ISOLINUX's LINUX/APPEND: the 16-bit boot protocol, as a syslinux USB stick uses it."""
    isolinux, ldlinux = "/usr/lib/ISOLINUX/isolinux.bin", "/usr/lib/syslinux/modules/bios/ldlinux.c32"
    xorriso = shutil.which("xorriso")
    if not xorriso or not os.path.exists(isolinux) or not os.path.exists(ldlinux):
        skip("xorriso, isolinux or syslinux-common missing (scripts/install-deps.sh installs them)")
    with tempfile.TemporaryDirectory() as d:
        root = os.path.join(d, "iso")
        os.makedirs(root)
        shutil.copy(image, os.path.join(root, "rtf-bare"))     # rtf-bare64 too: the name isolinux.cfg says
        for src in (isolinux, ldlinux):
            shutil.copy(src, root)
        with open(os.path.join(root, "isolinux.cfg"), "w") as f:
            f.write("DEFAULT rtf\nPROMPT 0\nLABEL rtf\n  LINUX /rtf-bare\n  APPEND test=self\n")
        iso = os.path.join(d, "syslinux.iso")
        p = subprocess.run([xorriso, "-as", "mkisofs", "-quiet", "-o", iso, "-b", "isolinux.bin", "-c", "boot.cat",
                            "-no-emul-boot", "-boot-load-size", "4", "-boot-info-table", root],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            fail("xorriso failed", p.stdout)
        out, value = boot(image, None, cdrom=iso)
    check_loader_boot(out, value, 16, "syslinux")


def case_size(build, image):
    with open(image + ".size") as f:
        sizes = {k: int(v) for k, v in (line.strip().split("=") for line in f if "=" in line)}
    print(sizes)
    if sizes["image_bytes"] != os.path.getsize(image):
        fail("size: rtf-bare.size is stale")
    if sizes["image_bytes"] > IMAGE_MAX_BYTES:
        fail(f"size: image {sizes['image_bytes']} bytes > {IMAGE_MAX_BYTES}")
    if sizes["memory_bytes"] > MEMORY_MAX_BYTES:
        fail(f"size: memory {sizes['memory_bytes']} bytes > {MEMORY_MAX_BYTES}")
    out, value = boot(image, "test=self")
    mem = memory_line(out)
    if value != 0 or not mem:
        fail("size: no memory report")
    print("# run time:", mem)
    if mem["footprint"] != sizes["memory_bytes"]:
        fail(f"size: the image reports a footprint of {mem['footprint']}, the build {sizes['memory_bytes']}")
    if not 0 < mem["heap_high_water"] <= mem["heap_size"] or not mem["root_idle_stacks_used"] \
            or not 0 < mem["task_stack_used_max"] <= 2048:
        fail("size: heap high-water mark or stack use not measured")


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[3:] and sys.argv[3] not in QEMU:
        sys.exit("usage: run-bare.py BUILD_DIR CASE [rtf-bare|rtf-bare64]")
    build, case = sys.argv[1], sys.argv[2]
    name = sys.argv[3] if len(sys.argv) == 4 else "rtf-bare"
    image = os.path.join(build, "src", "bare", name)
    if not os.path.exists(image):
        print(f"SKIP: {name} was not built (the compiler cannot build its code: see meson setup's output)")
        sys.exit(77)
    if case == "self":
        case_self(image)
    elif case == "latency":
        case_latency(image)
    elif case == "overflow":
        case_fault(image, "overflow", "stack overflow")
    elif case == "fpu-misuse":
        case_fault(image, "fpu-misuse", "FPU used by a task created with uses_fpu = 0")
    elif case == "pit":
        case_pit(image)
    elif case == "usage":
        case_usage(image)
    elif case == "size":
        case_size(build, image)
    elif case == "grub":
        case_grub(image)
    elif case == "syslinux":
        case_syslinux(image)
    else:
        sys.exit(f"unknown case {case}")
    print(f"PASS: {case}")


if __name__ == "__main__":
    main()
