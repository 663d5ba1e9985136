"""The kernel-trace figures of `powersweep report` (docs/traces.md,
docs/report.md), registered in report_plots.PLOTTERS: the most frequent
system calls per cell (the Appl. Sci. '23 study's Table 5) and write-backs
per cell (its Fig. 3: intervals between them; Tables 9 and 10: reasons).
Traces are always measured on the agent's kernel (twins have none), so the
titles carry no provenance note.
"""

import math

import matplotlib.pyplot as plt
from matplotlib.patches import Patch

import report_axes as axes_util
from report_plots import need, num, split_common, wrap

COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
          "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


def ordered(values):
    out = []
    for v in values:
        if v not in out:
            out.append(v)
    return out


def trace_syscalls(rows, title):
    """One group of bars per system call (the most frequent of every cell),
    one bar per cell: calls per run."""
    name = "trace_syscalls"
    need(rows, name, "cell", "syscall", "calls_per_run", "share_percent")
    cells = ordered(r["cell"] for r in rows)
    calls = ordered(r["syscall"] for r in rows)
    common, labels = split_common(cells)
    value = {(r["cell"], r["syscall"]): num(r["calls_per_run"]) for r in rows}
    height = 0.8 / max(1, len(cells))
    fig, ax = plt.subplots(figsize=(10, 1.8 + 0.25 * len(calls) *
                                    max(1, len(cells)) + 0.2 * len(cells)))
    for i, cell in enumerate(cells):
        y = [c + i * height for c in range(len(calls))]
        ax.barh(y, [value.get((cell, s), 0) for s in calls], height=height,
                color=COLORS[i % len(COLORS)])
    ax.set_yticks([c + height * (len(cells) - 1) / 2
                   for c in range(len(calls))])
    ax.set_yticklabels(calls, fontsize=8)
    ax.invert_yaxis()
    axes_util.plain_ticks(ax)
    ax.set_xlabel("system calls per run (the workload's processes)")
    sub = title + ("\n" + common if common else "")
    ax.set_title(sub, fontsize=10)
    legend_h = 0.25 + 0.18 * math.ceil(len(cells) / 2)
    fig.tight_layout(rect=(0, legend_h / fig.get_figheight(), 1, 1))
    fig.legend(handles=[Patch(color=COLORS[i % len(COLORS)],
                              label=wrap(l, 70))
                        for i, l in enumerate(labels)],
               loc="lower center", ncol=2, fontsize=8, frameon=False)
    return fig


def trace_writeback(rows, title):
    """Left: the mean interval between write-backs per cell (SD as error
    bars); right: write-backs per run by reason, stacked."""
    name = "trace_writeback"
    need(rows, name, "cell", "reason", "writebacks_per_run",
         "interval_mean_s", "interval_sd_s")
    cells = ordered(r["cell"] for r in rows)
    reasons = ordered(r["reason"] for r in rows if r["reason"] != "all")
    common, labels = split_common(cells)
    by = {(r["cell"], r["reason"]): r for r in rows}
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(10, 2.2 + 0.35 * len(cells)), sharey=True)
    y = list(range(len(cells)))
    means, sds = [], []
    for c in cells:
        r = by.get((c, "all"), {})
        m = num(r.get("interval_mean_s", ""))
        s = num(r.get("interval_sd_s", ""))
        means.append(0 if math.isnan(m) else m)
        sds.append(0 if math.isnan(s) else s)
    left.barh(y, means, xerr=sds, color="#1f77b4", height=0.6, capsize=2)
    left.set_xlabel("interval between write-backs (s, mean and SD)")
    left.set_yticks(y)
    left.set_yticklabels([wrap(l, 45) for l in labels], fontsize=8)
    left.invert_yaxis()
    axes_util.plain_ticks(left)
    base = [0.0] * len(cells)
    for i, reason in enumerate(reasons):
        vals = [num(by[(c, reason)]["writebacks_per_run"])
                if (c, reason) in by else 0 for c in cells]
        right.barh(y, vals, left=base, height=0.6,
                   color=COLORS[i % len(COLORS)], label=reason)
        base = [b + v for b, v in zip(base, vals)]
    right.set_xlabel("write-backs per run, by reason")
    axes_util.plain_ticks(right)
    fig.suptitle(title + ("\n" + common if common else ""), fontsize=10)
    legend_h = 0.45
    fig.tight_layout(rect=(0, legend_h / fig.get_figheight(), 1, 1))
    fig.legend(handles=[Patch(color=COLORS[i % len(COLORS)], label=r)
                        for i, r in enumerate(reasons)],
               loc="lower center", ncol=min(5, max(1, len(reasons))),
               fontsize=8, frameon=False)
    return fig


PLOTTERS = {
    "trace_syscalls": trace_syscalls,
    "trace_writeback": trace_writeback,
}
