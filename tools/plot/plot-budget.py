#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Draw rtf-budget's precision run like Fig. 6 of the RTAI budget paper:
plot-budget.py DATA.json OUT.png

DATA.json is rtf-budget's --json document.  One row per task (tau1..tau4),
one column per mode that was run (hard: the kernel's CBS; soft: librtf's
enforcement): the budget rate (CPU received / budget) of every period, in %,
with the +-5 % band that counts as on target.  Each row has one scale for both
modes, at least 80-120 %, so that hard and soft compare at a glance.  The
format follows OUT's extension (png, svg, pdf)."""
import json
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("plot-budget.py: python3-matplotlib is not installed (apt-get install python3-matplotlib)")

TOLERANCE = 5.0         # %, as rtf-budget counts violations
MODES = (("hard", "hard budget", "tab:red"), ("soft", "soft budget", "tab:blue"))


def ms(us):
    return f"{us / 1000:g} ms"


def greek(name):
    return "\u03c4" + name[3:] if name.startswith("tau") else name


def y_range(tasks):
    """One scale per row, so that hard and soft compare at a glance; at least
    80-120 % so that the band stays readable when everything is inside it."""
    rates = [r * 100 for t in tasks for r in t["rates"]] or [100]
    lo, hi = min(80, min(rates)), max(120, max(rates))
    margin = (hi - lo) * 0.04
    return lo - margin, hi + margin


def panel(ax, task, label, colour):
    rates = [r * 100 for r in task["rates"]]
    ax.axhspan(100 - TOLERANCE, 100 + TOLERANCE, color="tab:green", alpha=0.2, lw=0,
               label=f"100 % \u00b1 {TOLERANCE:g} %")
    ax.axhline(100, color="tab:green", lw=0.6)
    ax.plot(range(len(rates)), rates, color=colour, lw=0.7, marker=".", ms=2, label=label)
    ax.set_title(f"{greek(task['name'])} (Period, Budget) = ({ms(task['period_us'])}, "
                 f"{ms(task['budget_us'])}){', system calls' if task.get('workload') == 'syscalls' else ''}\n"
                 f"{label}: {task['violations']} of {task['periods']} periods more than {TOLERANCE:g} % off",
                 fontsize=9)
    ax.set_xlim(0, max(len(rates) - 1, 1))
    ax.grid(True, alpha=0.3)
    ax.tick_params(labelsize=8)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot-budget.py DATA.json OUT.png")
    try:
        with open(sys.argv[1]) as f:
            doc = json.load(f)
        prec = doc["precision"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"plot-budget.py: {sys.argv[1]} is not rtf-budget --json output: {e}")
    modes = [(m, f"{name} ({prec[m]['scheduler']})", colour) for m, name, colour in MODES if m in prec]
    if not modes:
        sys.exit(f"plot-budget.py: {sys.argv[1]} has no precision run")
    rows = max(len(prec[m]["tasks"]) for m, _, _ in modes)
    fig, axes = plt.subplots(rows, len(modes), figsize=(6.5 * len(modes), 2.6 * rows + 0.8),
                             squeeze=False, sharex="row")
    for col, (m, label, colour) in enumerate(modes):
        for row, task in enumerate(prec[m]["tasks"]):
            panel(axes[row][col], task, label, colour)
        for row in range(len(prec[m]["tasks"]), rows):
            axes[row][col].set_visible(False)
        axes[rows - 1][col].set_xlabel("period")
        axes[0][col].legend(fontsize=7, loc="lower right")
    for row in range(rows):
        lo, hi = y_range([prec[m]["tasks"][row] for m, _, _ in modes if row < len(prec[m]["tasks"])])
        for col in range(len(modes)):
            axes[row][col].set_ylim(lo, hi)
    for row in range(rows):
        axes[row][0].set_ylabel("budget rate (%)")
    fig.suptitle(f"{doc.get('tool', 'rtf-budget')}: budget rate per period (received / assigned CPU time),"
                 f"{' ' if len(modes) > 1 else chr(10)}kernel {doc.get('kernel', {}).get('release', '?')}", fontsize=11)
    fig.tight_layout()
    try:
        fig.savefig(sys.argv[2], dpi=100)
    except (OSError, ValueError) as e:
        sys.exit(f"plot-budget.py: cannot write {sys.argv[2]}: {e}")


if __name__ == "__main__":
    main()
