#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Table 2 of "Real-time Linux on a Raspberry Pi", on rtf: the latency task of
rtf-nexa toggling its line every 360 us and every 35 ms, its edge-timing error
measured inside the task (rt_timer_read() minus the ideal time), idle, under
CPU load and under network load on the loopback interface, next to
cyclictest run at the same time at the same priority (99) on the same CPU.
Also, with --waveform, a PNG of one achieved transmission against the ideal.

Needs root (it starts a private rtfd from the build) and stress-ng,
cyclictest; matplotlib for --waveform.

    sudo apps/rtf-nexa/nexa-table2.py --build build --duration-s 10 \\
         --json table2.json --waveform docs/nexa-waveform.png
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

LOADS = {
    "idle": None,
    "cpu": ["--cpu", "2", "--cpu-method", "matrixprod"],
    "network": ["--sock", "2", "--sock-port", "23461"],       # TCP over loopback
}
PERIODS_US = (360, 35000)


def percentile(hist, total, q):
    """The smallest bucket (1 us) at or under which a fraction q of the samples lie (as tools/common/stats.c)."""
    need = q * total
    seen = 0
    for us in sorted(hist):
        seen += hist[us]
        if seen >= need:
            return us
    return max(hist) if hist else 0


class Rtfd:
    def __init__(self, build):
        self.dir = tempfile.mkdtemp(prefix="rtf-table2-")
        os.chmod(self.dir, 0o755)
        self.socket = os.path.join(self.dir, "rtfd.sock")
        conf, acl = os.path.join(self.dir, "rtfd.conf"), os.path.join(self.dir, "acl.conf")
        with open(conf, "w") as f:
            f.write("FP FP.so 1-99 all\n")
        open(acl, "w").close()
        self.log = open(os.path.join(self.dir, "rtfd.log"), "w")
        self.proc = subprocess.Popen([os.path.join(build, "src", "daemon", "rtfd"), "--socket", self.socket,
                                      "--plugindir", os.path.join(build, "plugins"), "--foreground",
                                      "--config", conf, "--acl", acl], stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(200):
            if os.path.exists(self.socket):
                return
            time.sleep(0.05)
        raise SystemExit("nexa-table2: rtfd did not start (see %s)" % self.dir)

    def task_cpu(self, rtfctl, priority):
        out = subprocess.run([rtfctl, "--socket", self.socket, "--json", "tasks"], capture_output=True,
                             text=True, check=True).stdout
        for t in json.loads(out)["tasks"]:
            if t["requested_priority"] == priority:
                return t["cpu"]
        return None

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=10)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def measure(build, d, period_us, duration_s, work):
    nexa = os.path.join(build, "apps", "rtf-nexa", "rtf-nexa")
    report = os.path.join(work, "report.json")
    ct_json = os.path.join(work, "cyclictest.json")
    p = subprocess.Popen([nexa, "--pipe-dir", os.path.join(work, "pipes"), "--latency-us", str(period_us),
                          "--duration-s", str(duration_s + 1), "--report", report],
                         env=dict(os.environ, RTF_SOCKET=d.socket), stderr=subprocess.PIPE, text=True)
    cpu = None
    for _ in range(100):
        cpu = d.task_cpu(os.path.join(build, "src", "ctl", "rtfctl"), 99)
        if cpu is not None:
            break
        time.sleep(0.05)
    if cpu is None or cpu < 0:
        p.kill()
        raise SystemExit("nexa-table2: the latency task was not admitted: " + p.stderr.read())
    ct = subprocess.run(["cyclictest", "-m", "-q", "-p", "99", "-a", str(cpu), "-t", "1", "-i", str(period_us),
                         "-D", f"{duration_s}s", "-h", "20000", f"--json={ct_json}"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    p.wait(timeout=duration_s + 30)
    if p.returncode != 0 or ct.returncode != 0:
        raise SystemExit(f"nexa-table2: rtf-nexa {p.returncode} / cyclictest {ct.returncode}: "
                         + p.stderr.read() + ct.stderr)
    with open(report) as f:
        lat = json.load(f)["latency"]
    with open(ct_json) as f:
        t = json.load(f)["thread"]["0"]
    hist = {int(k): v for k, v in t["histogram"].items()}
    cycles = t["cycles"]
    e = lat["release_error"]
    return {
        "cpu": cpu,
        "task": {"samples": e["count"], "overruns": lat["overruns"], "p50_us": e["p50_ns"] / 1000,
                 "p99_us": e["p99_ns"] / 1000, "max_us": e["max_ns"] / 1000},
        "cyclictest": {"samples": cycles, "p50_us": percentile(hist, cycles, 0.50),
                       "p99_us": percentile(hist, cycles, 0.99), "max_us": t["max"]},
    }


def waveform(build, d, png, work):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    nexa = os.path.join(build, "apps", "rtf-nexa", "rtf-nexa")
    vcd, pipes = os.path.join(work, "tx.vcd"), os.path.join(work, "wpipes")
    p = subprocess.Popen([nexa, "--pipe-dir", pipes, "--record-vcd", vcd],
                         env=dict(os.environ, RTF_SOCKET=d.socket), stderr=subprocess.PIPE, text=True)
    for _ in range(100):
        if os.path.exists(os.path.join(pipes, "rtp1")):
            break
        time.sleep(0.05)
    time.sleep(0.2)
    with open(os.path.join(pipes, "rtp1"), "w") as f:
        f.write("d21\n")
    time.sleep(1.0)
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=10)
    wires = {"t": [], "i": []}
    now = 0
    with open(vcd) as f:
        for line in f:
            line = line.strip()
            if line.startswith("#"):
                now = int(line[1:])
            elif line[:1] in "01" and line[1:] in wires:
                wires[line[1:]].append((now, int(line[0])))
    t0 = wires["i"][1][0]
    fig, axes = plt.subplots(2, 1, figsize=(10, 5))
    for ax, span in zip(axes, (48e6, 3e6)):
        for key, label, off in (("i", "ideal", 1.2), ("t", "achieved (rt_timer_read at the write)", 0)):
            xs, ys = [], []
            for at, v in wires[key]:
                x = (at - t0) / 1e3
                if xs:
                    xs.append(x)
                    ys.append(ys[-1])
                xs.append(x)
                ys.append(v + off)
            ax.plot(xs, ys, label=label, drawstyle="default")
        ax.set_xlim(-50, span / 1e3)
        ax.set_yticks([])
        ax.set_xlabel("us from the first ideal edge")
    axes[0].set_title("rtf-nexa: 'd21' (house D unit 2 on), first of four repeats, T = 360 us")
    axes[0].legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(png, dpi=100)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--duration-s", type=int, default=10)
    ap.add_argument("--json", help="write the results there")
    ap.add_argument("--waveform", help="PNG of an achieved transmission against the ideal one")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("nexa-table2: needs root (it starts a private rtfd)")
    for tool in ("stress-ng", "cyclictest"):
        if not shutil.which(tool):
            sys.exit(f"nexa-table2: {tool} is not installed (scripts/install-deps.sh)")
    build = os.path.abspath(a.build)
    work = tempfile.mkdtemp(prefix="rtf-table2-work-")
    d = Rtfd(build)
    results = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "kernel": os.uname().release,
               "duration_s": a.duration_s, "rows": []}
    try:
        for load, args in LOADS.items():
            stress = None
            if args:
                stress = subprocess.Popen(["stress-ng", *args, "--timeout", "600s", "--quiet"],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                          start_new_session=True)
                time.sleep(1)
            try:
                for period in PERIODS_US:
                    r = measure(build, d, period, a.duration_s, work)
                    r.update(load=load, period_us=period)
                    results["rows"].append(r)
                    print(f"# {load:8} {period:6} us  task p50/p99/max {r['task']['p50_us']:.0f}/"
                          f"{r['task']['p99_us']:.0f}/{r['task']['max_us']:.0f} us  cyclictest "
                          f"{r['cyclictest']['p50_us']}/{r['cyclictest']['p99_us']}/{r['cyclictest']['max_us']} us",
                          file=sys.stderr)
            finally:
                if stress:
                    os.killpg(stress.pid, signal.SIGKILL)
                    stress.wait()
        if a.waveform:
            waveform(build, d, a.waveform, work)
    finally:
        d.stop()
        shutil.rmtree(work, ignore_errors=True)
    results["ended"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    print("| period | load | inside the task: p50 / p99 / worst (us) | cyclictest: p50 / p99 / worst (us) | task overruns |")
    print("|---|---|---|---|---|")
    for r in results["rows"]:
        t, c = r["task"], r["cyclictest"]
        print(f"| {r['period_us']} us | {r['load']} | {t['p50_us']:.0f} / {t['p99_us']:.0f} / {t['max_us']:.0f} | "
              f"{c['p50_us']} / {c['p99_us']} / {c['max_us']} | {t['overruns']} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
