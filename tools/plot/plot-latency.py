#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Draw rtf-latency's histogram(s): plot-latency.py DATA.json OUT.png

DATA.json is rtf-latency's --json document; with --compare both sides are
drawn.  Latencies span three decades (most below 100 us, a tail to ms), so
the x axis is logarithmic and the 1 us buckets are summed into bins of equal
width on it; an empty bin is a gap in the curve, never a line drawn at the
last count across it."""
import bisect
import json
import math
import sys

BINS_PER_DECADE = 20


def log_bins(histogram_us, per_decade=BINS_PER_DECADE):
    """[(bucket_us, count)] -> (edges, counts): bins of about equal width on a
    log axis from the smallest to the largest bucket, each at least one 1 us
    bucket wide (whole buckets, so no gap appears between two filled
    buckets); counts[i] is None for an empty bin.  Pure, for tests."""
    filled = [(b, c) for b, c in histogram_us if c > 0]
    if not filled:
        return [], []
    lo = max(min(b for b, _ in filled), 1)
    hi = max(b for b, _ in filled) + 1             # bucket b holds [b, b + 1) us
    edges = [lo]
    step = 10 ** (1 / per_decade)
    while edges[-1] < hi:
        edges.append(max(edges[-1] + 1, math.ceil(edges[-1] * step)))
    counts = [0] * (len(edges) - 1)
    for b, c in filled:
        counts[bisect.bisect_right(edges, max(b, lo)) - 1] += c
    return edges, [c if c > 0 else None for c in counts]


def title(doc):
    p = doc["parameters"]
    load = f"--load {p['load']}" if p.get("load") else "no --load"
    return (f"{doc['tool']}: period {p['period_us']} us, {p['plugin']} priority {p['priority']}, "
            f"CPU {p['cpu']}, {load}")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot-latency.py DATA.json OUT.png")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot-latency.py: python3-matplotlib is not installed (apt-get install python3-matplotlib)")
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for side, colour in (("rtf", "tab:blue"), ("cyclictest", "tab:orange")):
        s = doc.get(side)
        if not s or not s["histogram_us"]:
            continue
        edges, counts = log_bins(s["histogram_us"])
        label = (f"{side}: p50 {s['p50_ns'] / 1000:.0f} us, p99 {s['p99_ns'] / 1000:.0f} us, "
                 f"max {s['max_ns'] / 1000:.0f} us ({s['samples']} samples)")
        # NaN breaks the line: an empty bin is a gap.
        ys = [float("nan") if c is None else c for c in counts]
        ax.stairs(ys, edges, color=colour, label=label, baseline=None)
        for q, style in (("p50_ns", ":"), ("p99_ns", "--")):
            ax.axvline(max(s[q] / 1000, edges[0]), color=colour, linestyle=style, linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(f"wake-up latency (us, log scale; {BINS_PER_DECADE} bins per decade; dotted p50, dashed p99)")
    ax.set_ylabel("samples per bin")
    ax.set_title(title(doc))
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
