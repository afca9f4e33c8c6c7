#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Draw rtf-latency's histogram(s) on a log scale: plot-latency.py DATA.json OUT.png

DATA.json is rtf-latency's --json document; with --compare both sides are drawn."""
import json
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("plot-latency.py: python3-matplotlib is not installed (apt-get install python3-matplotlib)")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot-latency.py DATA.json OUT.png")
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    p = doc["parameters"]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for side, colour in (("rtf", "tab:blue"), ("cyclictest", "tab:orange")):
        s = doc.get(side)
        if not s or not s["histogram_us"]:
            continue
        xs = [b[0] for b in s["histogram_us"]]
        ys = [b[1] for b in s["histogram_us"]]
        label = (f"{side}: p50 {s['p50_ns'] / 1000:.0f} us, p99 {s['p99_ns'] / 1000:.0f} us, "
                 f"max {s['max_ns'] / 1000:.0f} us ({s['samples']} samples)")
        ax.step(xs, ys, where="post", color=colour, label=label)
    ax.set_yscale("log")
    ax.set_xlabel("wake-up latency (us, 1 us buckets)")
    ax.set_ylabel("samples")
    load = p.get("load") or "idle"
    ax.set_title(f"{doc['tool']}: period {p['period_us']} us, {p['plugin']} priority {p['priority']}, "
                 f"CPU {p['cpu']}, {load}")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
