#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Draw rtf-sim's figures:
plot-sim.py DATA.json PREFIX  ->  PREFIX-curves-RM.png, PREFIX-curves-EDF.png (--curves)
                                  PREFIX-gantt.png (--scenario with --gantt)

Acceptance ratio against utilisation, as in the schedulability literature:
the plugin's test as configured by default and at util=1, the exact test
(simulation over the hyperperiod) and the paper's test.  The Gantt chart
shows one row per CPU, one colour per task, the kernel's reserved share in
grey and a red line where a deadline was missed."""
import json
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("plot-sim.py: python3-matplotlib is not installed (apt-get install python3-matplotlib)")


def curves(res, out):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    rows = res["rows"]
    u = [r["utilization"] for r in rows]
    two = "worst-fit" in rows[0]
    if two:
        name = res["plugin"][:-1]
        series = (("exact", "exact: some split passes on each CPU", "k-"),
                  ("worst-fit", f"{name}.so placement=worst-fit", "b-o"),
                  ("first-fit", f"{name}.so placement=first-fit", "g--s"),
                  ("best-fit", f"{name}.so placement=best-fit", "m-.d"))
        title = (f"{name} on 2 CPUs (util=1), {res['tasks_per_set']} tasks: pessimism "
                 + ", ".join(f"{k} {100 * res['pessimism_' + k]:.1f} %"
                             for k in ("worst-fit", "first-fit", "best-fit")))
    else:
        series = (("exact", "exact (simulation over the hyperperiod)", "k-"),
                  ("plugin_util1", f"{res['plugin']}.so test at util=1", "b-o"),
                  ("plugin_default", f"{res['plugin']}.so test, default util", "g--s"),
                  ("paper", f"paper: {res['paper_test']}", "r:^"))
        title = (f"{res['plugin']}: acceptance ratio, {res['tasks_per_set']} tasks per set, "
                 f"pessimism {100 * res['pessimism']:.1f} %")
    for key, label, style in series:
        ax.plot(u, [r[key] for r in rows], style, label=label, markersize=4)
    ax.set_xlabel("utilisation of the set (on %s)" % ("two CPUs" if two else "one CPU"))
    ax.set_ylabel("share of sets admitted")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title, fontsize=9 if two else None)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def gantt(res, out):
    segs = res.get("gantt", [])
    if not segs:
        sys.exit("plot-sim.py: no schedule in the data (run --scenario with --gantt)")
    end = max(s["end_us"] for s in segs)
    # the first few periods of the longest task are what one can look at
    limit = min(end, 3 * max(t["period_us"] for t in res["set"]) if res["set"] else end)
    cpus = sorted({s["cpu"] for s in segs})
    colours = plt.get_cmap("tab10")
    fig, ax = plt.subplots(figsize=(10, 1.2 + 0.8 * len(cpus)))
    seen = set()
    for s in segs:
        if s["start_us"] >= limit or s["task"] == -1:
            continue
        width = min(s["end_us"], limit) - s["start_us"]
        colour = "lightgrey" if s["task"] < 0 else colours(s["task"] % 10)
        label = "kernel's share" if s["task"] < 0 else f"task {s['task']}"
        ax.broken_barh([(s["start_us"] / 1000, width / 1000)], (s["cpu"] - 0.4, 0.8), color=colour,
                       label=None if label in seen else label)
        seen.add(label)
    miss = res.get("miss")
    if miss and miss["deadline_us"] <= limit:
        ax.axvline(miss["deadline_us"] / 1000, color="red", linewidth=2,
                   label=f"task {miss['task']} misses its deadline")
    ax.set_yticks(cpus)
    ax.set_yticklabels([f"CPU {c}" for c in cpus])
    ax.set_xlabel("time (ms)")
    ax.set_title(f"rtf-sim {res['scenario']}, machine check {'on' if res['machine_check'] else 'off'}")
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot-sim.py DATA.json PREFIX")
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    for res in doc["results"]:
        if doc["mode"] == "curves":
            curves(res, f"{sys.argv[2]}-curves-{res['plugin']}.png")
        elif doc["mode"] == "scenario":
            gantt(res, sys.argv[2] + "-gantt.png")


if __name__ == "__main__":
    main()
