#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Draw rtf-bench's figures like Figs. 3 and 5 of the paper:
plot-bench.py DATA.json PREFIX  ->  PREFIX-create.png, PREFIX-change.png

One line per plugin and core count: p50 latency of rtf_spec_create /
rtf_spec_change against the number of tasks already admitted, with the bare
AF_UNIX round trip measured in the same run as a floor.  A series that rtfd
ended early (a limit) simply has fewer points; an external rtfd's socket is
named in the title."""
import json
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
except ImportError:
    if __name__ == "__main__":
        sys.exit("plot-bench.py: python3-matplotlib is not installed (apt-get install python3-matplotlib)")


def task_ticks(doc):
    """The task counts measured: the x ticks (a log axis would put them at 0 and 10 only)."""
    return sorted({row["tasks"] for row in doc["rows"]})


def figure(doc, key, title, out):
    fig, ax = plt.subplots(figsize=(8, 4.5))
    series = {}
    for row in doc["rows"]:
        series.setdefault((row["plugin"], row["cores"]), []).append((row["tasks"], row[key] / 1000))
    for (plugin, cores), pts in sorted(series.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                label=f"{plugin}, {cores} core{'s' if cores > 1 else ''}")
    ax.axhline(doc["rtt_p50_ns"] / 1000, color="grey", linestyle="--",
               label=f"bare AF_UNIX round trip ({doc['rtt_p50_ns'] / 1000:.1f} us)")
    ax.set_xscale("symlog", linthresh=16)
    ax.set_xlabel("tasks already admitted")
    ax.set_ylabel(f"{title} p50 (us)")
    ax.set_ylim(bottom=0)
    ax.set_xlim(left=0)
    ticks = task_ticks(doc)
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(t) for t in ticks])
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    which = f" (rtfd at {doc['socket']})" if doc.get("mode") == "external" else ""
    ax.set_title(f"rtf-bench: {title} latency{which}")
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot-bench.py DATA.json PREFIX")
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    figure(doc, "create_p50_ns", "rtf_spec_create", sys.argv[2] + "-create.png")
    figure(doc, "change_p50_ns", "rtf_spec_change", sys.argv[2] + "-change.png")


if __name__ == "__main__":
    main()
