#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Draw rtf-bare's latency histograms: plot-bare.py SERIAL.log OUT.png

SERIAL.log is what rtf-bare printed on its serial console; every line
`latency {...}` (one per timer mode and load) becomes one panel, on a log
scale as in the Lightweight RTAI paper's Figures 1 and 3.  --table prints the
figures as text instead (no matplotlib needed)."""
import json
import sys


def records(path):
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("latency {"):
                out.append(json.loads(line[len("latency "):]))
    return out


def table(recs):
    print(f"{'timer':9} {'load':5} {'samples':>8} {'min_us':>8} {'avg_us':>8} {'p99_us':>8} {'max_us':>8}")
    for r in recs:
        print(f"{r['timer']:9} {r['load']:5} {r['samples']:>8} {r['min_ns'] / 1000:8.2f} {r['avg_ns'] / 1000:8.2f} "
              f"{r['p99_ns'] / 1000:8.2f} {r['max_ns'] / 1000:8.2f}")


def plot(recs, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot-bare.py: python3-matplotlib is not installed (apt-get install python3-matplotlib)")
    fig, axes = plt.subplots(len(recs), 1, figsize=(8, 2.6 * len(recs)), squeeze=False)
    for ax, r in zip(axes[:, 0], recs):
        xs = [b[0] / 1000 for b in r["histogram_ns"]]
        ys = [b[1] for b in r["histogram_ns"]]
        ax.bar(xs, ys, width=r["bucket_ns"] / 1000, align="edge", color="tab:blue")
        ax.set_yscale("log")
        ax.set_ylabel("samples")
        ax.set_title(f"{r['timer']} timer, {r['load']}: min {r['min_ns'] / 1000:.2f}, avg {r['avg_ns'] / 1000:.2f}, "
                     f"p99 {r['p99_ns'] / 1000:.2f}, max {r['max_ns'] / 1000:.2f} us ({r['samples']} samples)",
                     fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
    axes[-1, 0].set_xlabel(f"scheduling latency (us, {recs[0]['bucket_ns']} ns buckets)")
    fig.tight_layout()
    fig.savefig(out, dpi=100)


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--table":
        recs = records(args[1])
        table(recs)
        return
    if len(args) != 2:
        sys.exit("usage: plot-bare.py SERIAL.log OUT.png | plot-bare.py --table SERIAL.log")
    recs = records(args[0])
    if not recs:
        sys.exit(f"plot-bare.py: no 'latency {{...}}' line in {args[0]}")
    plot(recs, args[1])


if __name__ == "__main__":
    main()
