"""One function per figure of `powersweep report` (plot_report.py calls
them): each takes the rows of FIGURE.csv (dicts of strings) and the
figure's title, and returns a matplotlib Figure. A figure whose rows carry
a provenance other than "measured" says so in its title. Columns are
described in docs/report.md; a missing one is a ValueError naming it.
"""

import math
import random
import textwrap

import matplotlib.pyplot as plt

import report_axes as axes_util

plt.rcParams.update({
    "svg.fonttype": "none",      # text stays text: small, searchable SVGs
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.grid": True,
    "grid.alpha": 0.3,
})

MAX_BARS = 240        # cells shown in a bar chart (all are in the CSV)
MAX_CELLS = 40        # cells in the variability figure
PARETO_LOG_SPREAD = 8  # a Pareto axis spanning more than this is log


def need(rows, name, *cols):
    for c in cols:
        if rows and c not in rows[0]:
            raise ValueError("%s.csv has no column '%s'" % (name, c))


def num(text):
    return float(text) if text not in ("", None) else float("nan")


def provenance_title(title, rows):
    kinds = sorted({r.get("provenance", "") for r in rows} -
                   {"measured", ""})
    if not kinds:
        return title
    words = {"simulated": "simulated (twin devices)",
             "modeled": "modeled (power model, not measured)"}
    return "%s\n[%s data]" % (title, ", ".join(words.get(k, k) for k in kinds))


def wrap(text, width=60):
    return "\n".join(textwrap.wrap(text, width)) or text


def split_common(labels):
    """('orin-agx lenet5 ... native', ['MAXN', ...]) when every cell label
    shares its part before ' | '; else ('', labels)."""
    heads = {l.split(" | ", 1)[0] for l in labels}
    if len(heads) == 1 and all(" | " in l for l in labels):
        return heads.pop(), [l.split(" | ", 1)[1] for l in labels]
    return "", labels


LEGEND_ROW_IN = 0.25   # height of one row of a figure legend (inches)


def legend_below(fig, axes_list, ncol=3, top_in=0.0):
    """One legend for the figure, below every axes (never over data):
    entries gathered from `axes_list`, each label once. `top_in` inches
    are kept free above the axes for the figure's title."""
    handles, labels = [], []
    for ax in axes_list:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels and not l.startswith("_"):
                handles.append(h)
                labels.append(l)
    height = fig.get_figheight()
    rows = math.ceil(len(labels) / ncol) if labels else 0
    bottom = (0.15 + LEGEND_ROW_IN * rows) / height
    fig.tight_layout(rect=(0, bottom, 1, 1 - top_in / height))
    if labels:
        fig.legend(handles, labels, loc="lower center", ncol=ncol,
                   fontsize=8, frameon=False,
                   bbox_to_anchor=(0.5, 0.02 / height))


def stacked_bars(rows, title, parts, xlabel, name):
    """One horizontal stacked bar per cell. Cells of workloads whose totals
    span more than LOG_SPREAD go to one panel per workload, each with its
    own scale (a log one when its own bars still span that much)."""
    need(rows, name, "cell", *[p[0] for p in parts])
    shown = rows[:MAX_BARS]
    common, labels = split_common([r["cell"] for r in shown])
    totals = [sum(0 if math.isnan(num(r[c])) else num(r[c])
                  for c, _, _ in parts) for r in shown]
    groups = {}
    for r, total in zip(shown, totals):
        groups.setdefault(r["cell"].split(" | ", 1)[0], []).append((r, total))
    split = len(groups) > 1 and axes_util.spread(totals) > axes_util.LOG_SPREAD
    panels = list(groups.items()) if split else [("", list(zip(shown,
                                                                totals)))]
    heights = [0.9 + 0.3 * len(p[1]) for p in panels]
    top_in = 1.0
    fig = plt.figure(figsize=(10, sum(heights) + top_in + 0.9))
    grid = fig.add_gridspec(len(panels), 1, height_ratios=heights)
    axes_list = []
    for i, (head, members) in enumerate(panels):
        ax = fig.add_subplot(grid[i, 0])
        axes_list.append(ax)
        y = list(range(len(members)))
        left = [0.0] * len(members)
        for col, label, color in parts:
            vals = [num(r[col]) for r, _ in members]
            ax.barh(y, vals, left=left, color=color, label=label, height=0.7)
            left = [a + (0 if math.isnan(b) else b) for a, b in zip(left, vals)]
        widest = max([v for v in left if not math.isnan(v)] or [1])
        if axes_util.spread(left) > axes_util.LOG_SPREAD:
            ax.set_xscale("log")
            smallest = min(v for r, _ in members for v in
                           (num(r[c]) for c, _, _ in parts) if v > 0)
            ax.set_xlim(smallest / 2, widest * 1.5)
        else:
            ax.set_xlim(0, widest * 1.05 if widest > 0 else 1)
        axes_util.plain_ticks(ax)
        ax.set_yticks(y)
        if split:
            names = [r["cell"].split(" | ", 1)[-1] for r, _ in members]
        else:
            names = labels
        ax.set_yticklabels([wrap(l, 70) for l in names], fontsize=8)
        ax.invert_yaxis()
        if split:
            ax.set_title(wrap(head, 90) + ("  (log scale)" if
                         ax.get_xscale() == "log" else ""), fontsize=8)
        ax.set_xlabel(xlabel + (", log scale" if ax.get_xscale() == "log"
                                else ""))
    sub = title
    if common:
        sub += "\n" + common
    if split:
        sub += "\n(one panel per workload, each with its own scale)"
    if len(rows) > len(shown):
        sub += "\n(first %d of %d cells; all in the CSV)" % (len(shown),
                                                             len(rows))
    head_text = provenance_title(sub, rows)
    fig.suptitle(head_text, fontsize=10)
    # Room for the title's lines above the first panel (tight_layout alone
    # let a three-line title overlap the first panel's own title).
    legend_below(fig, axes_list,
                 top_in=0.1 + 0.17 * (head_text.count("\n") + 1))
    fig.powersweep_extra = lambda: {
        "workloads": [p[0] for p in panels] if split else sorted(groups),
        "bars": sum(len(p[1]) for p in panels)}
    return fig


def minibatch_time(rows, title):
    return stacked_bars(rows, title, [
        ("stall_ms", "fetch stall", "#d62728"),
        ("compute_ms", "compute", "#1f77b4"),
        ("overhead_ms", "overhead", "#aaaaaa"),
    ], "mean time per minibatch (ms)", "minibatch_time")


def energy_split(rows, title):
    return stacked_bars(rows, title, [
        ("baseload_j", "baseload (idle power x span)", "#aaaaaa"),
        ("incremental_j", "incremental (workload)", "#2ca02c"),
    ], "mean energy per run (J)", "energy_split")


MARK_STYLE = {"MAXN": ("*", "#d62728", 180)}
DEFAULT_STYLE = ("D", "#2ca02c", 70)


def pareto(rows, title):
    """One panel per workload (every one of them), each measured mode and
    each marked mode labelled with its name, one legend below the panels."""
    need(rows, "pareto", "panel", "kind", "mode", "mark", "time", "energy",
         "time_unit", "energy_unit", "on_front")
    panels = list(dict.fromkeys(r["panel"] for r in rows))
    cols = 1 if len(panels) == 1 else 2
    nrows = math.ceil(len(panels) / cols)
    top_in = 0.9
    fig, axes = plt.subplots(nrows, cols,
                             figsize=(7 * cols, 4.8 * nrows + top_in + 0.9),
                             squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    labels_of = {}  # panel -> its point labels (annotations)
    for ax, panel in zip(axes.flat, panels):
        pr = [r for r in rows if r["panel"] == panel]
        meas = [r for r in pr if r["kind"] == "measured"]
        front = sorted((r for r in meas if r["on_front"] == "1"),
                       key=lambda r: num(r["time"]))
        pred = sorted((r for r in pr if r["kind"] == "predicted_front"),
                      key=lambda r: num(r["time"]))
        if pred:
            ax.plot([num(r["time"]) for r in pred],
                    [num(r["energy"]) for r in pred], "--", color="#ff7f0e",
                    marker=".", markersize=4, linewidth=1.2,
                    label="predicted front (model, over the mode space)")
        ax.scatter([num(r["time"]) for r in meas],
                   [num(r["energy"]) for r in meas], s=28, color="#7f7f7f",
                   label="measured mode", zorder=3)
        if front:
            ax.plot([num(r["time"]) for r in front],
                    [num(r["energy"]) for r in front], "-o", color="#1f77b4",
                    markersize=6, label="measured front", zorder=4)
        labelled = list(meas)
        for r in pr:
            if not r["mark"]:
                continue
            marker, color, size = MARK_STYLE.get(r["mark"], DEFAULT_STYLE)
            measured = r["kind"] == "measured"
            # Measured marks filled, predicted ones hollow.
            ax.scatter([num(r["time"])], [num(r["energy"])], marker=marker,
                       s=size, facecolor=color if measured else "none",
                       edgecolor=color if not measured else "black",
                       linewidth=1.5, zorder=5,
                       label="%s (%s)" % (r["mark"], "measured" if measured
                                          else "predicted"))
            if not measured:
                labelled.append(r)
        unit_t, unit_e = pr[0]["time_unit"], pr[0]["energy_unit"]
        times = [num(r["time"]) for r in pr]
        energies = [num(r["energy"]) for r in pr]
        # A front spanning decades (slow modes far from the measured ones)
        # is drawn on log axes so the measured modes stay readable.
        log_x = axes_util.spread(times) > PARETO_LOG_SPREAD
        log_y = axes_util.spread(energies) > PARETO_LOG_SPREAD
        if log_x:
            ax.set_xscale("log")
        if log_y:
            ax.set_yscale("log")
        if not log_x:
            axes_util.pad_narrow(ax, "x", times)
        if not log_y:
            axes_util.pad_narrow(ax, "y", energies)
        axes_util.plain_ticks(ax)
        anns = []
        for r in labelled:
            # The preset's name (MODE_15W) when the runs asked for one,
            # else the knobs (cores=8 cpu=1728MHz ...).
            name = r.get("preset") or r["mode"]
            text = name if r["kind"] == "measured" else \
                "%s (predicted)" % name
            anns.append(ax.annotate(
                text, (num(r["time"]), num(r["energy"])),
                xytext=(6, 4), textcoords="offset points", fontsize=7,
                zorder=6, arrowprops=dict(arrowstyle="-", color="#999999",
                                          linewidth=0.6, shrinkA=0,
                                          shrinkB=2)))
        labels_of[panel] = anns
        ax.set_xlabel("time (%s%s)" % (unit_t, ", log scale" if log_x else ""))
        ax.set_ylabel("energy (%s%s)" % (unit_e,
                                          ", log scale" if log_y else ""))
        ax.set_title(wrap(panel, 70), fontsize=9)
    fig.suptitle(provenance_title("%s (%d workloads)" % (title, len(panels))
                                  if len(panels) > 1 else title, rows),
                 fontsize=11)
    visible = [ax for ax in axes.flat if ax.get_visible()]
    legend_below(fig, visible, ncol=3, top_in=0)
    fig.canvas.draw()
    for anns in labels_of.values():
        axes_util.separate_labels(fig, anns)

    def extra():
        out = {"workloads": panels, "point_labels": {}, "label_overlaps": 0}
        for panel, anns in labels_of.items():
            recs, overlaps = axes_util.annotation_records(fig, anns)
            out["point_labels"][panel] = recs
            out["label_overlaps"] += overlaps
        return out
    fig.powersweep_extra = extra
    return fig


def distributions(rows, title):
    need(rows, "distributions", "runtime", "power_w", "cpu_util_pct",
         "gpu_util_pct")
    runtimes = [r for r in ("native", "container", "vm", "container_in_vm")
                if any(x["runtime"] == r for x in rows)]
    fig, axes = plt.subplots(1, 3, figsize=(12, 4.2))
    for ax, (col, label) in zip(axes, [("power_w", "power (W)"),
                                       ("cpu_util_pct", "CPU utilization (%)"),
                                       ("gpu_util_pct", "GPU utilization (%)")]):
        data, names = [], []
        for rt in runtimes:
            vals = [num(r[col]) for r in rows if r["runtime"] == rt]
            vals = [v for v in vals if not math.isnan(v)]
            if vals:
                data.append(vals)
                names.append("%s\n(n=%d)" % (rt, len(vals)))
        if data and col == "gpu_util_pct" and all(
                x == 0 for v in data for x in v):
            # A host without a GPU reads 0 throughout: say so, not a flat box.
            ax.text(0.5, 0.5, "0 in every sample\n(no GPU in use,\nor none "
                    "on the device)", ha="center", va="center",
                    transform=ax.transAxes)
            ax.set_xticks([])
        elif data and all(len(set(v)) > 1 for v in data):
            ax.violinplot(data, showmedians=True)
            ax.set_xticks(range(1, len(data) + 1))
            ax.set_xticklabels(names)
        elif data:  # a constant series has no density: boxes instead
            ax.boxplot(data)
            ax.set_xticks(range(1, len(data) + 1))
            ax.set_xticklabels(names)
        else:
            ax.text(0.5, 0.5, "no readings", ha="center", va="center",
                    transform=ax.transAxes)
        axes_util.plain_ticks(ax)
        ax.set_ylabel(label)
    fig.suptitle(provenance_title(title, rows), fontsize=11)
    fig.tight_layout()
    return fig


def timeline(rows, title):
    need(rows, "timeline", "run_id", "t_s", "power_w", "cpu_util_pct",
         "gpu_util_pct")
    t = [num(r["t_s"]) for r in rows]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 5.5), sharex=True)
    top.plot(t, [num(r["power_w"]) for r in rows], color="#d62728",
             linewidth=1)
    top.set_ylabel("power (W)")
    bottom.plot(t, [num(r["cpu_util_pct"]) for r in rows], color="#1f77b4",
                linewidth=1, label="CPU")
    bottom.plot(t, [num(r["gpu_util_pct"]) for r in rows], color="#2ca02c",
                linewidth=1, label="GPU")
    bottom.set_ylabel("utilization (%)")
    bottom.set_xlabel("time since the run started (s)")
    bottom.set_ylim(-2, 102)
    axes_util.pad_narrow(top, "y", [num(r["power_w"]) for r in rows])
    for ax in (top, bottom):
        axes_util.plain_ticks(ax)
    fig.suptitle(provenance_title("%s: run %s" % (title, rows[0]["run_id"]),
                                  rows), fontsize=11)
    legend_below(fig, [bottom], ncol=2)
    return fig


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def heldout(rows, title):
    need(rows, "heldout", "panel", "target", "unit", "mode", "measured",
         "predicted", "ape_pct")
    targets = [t for t in ("time", "energy")
               if any(r["target"] == t for r in rows)]
    panels = list(dict.fromkeys(r["panel"] for r in rows))
    # Bars: one row per (panel, mode), a bar per target.
    keys = list(dict.fromkeys((r["panel"], r["mode"]) for r in rows))
    keys = keys[:MAX_BARS]
    bar_height = 0.6 + 0.3 * len(keys)
    entries = 1 + len(panels) * len(targets) + len(targets)
    fig = plt.figure(figsize=(11, 4.8 + bar_height + 1.0 +
                              LEGEND_ROW_IN * math.ceil(entries / 2)))
    grid = fig.add_gridspec(2, len(targets),
                            height_ratios=[4.8, bar_height])
    for col, target in enumerate(targets):
        ax = fig.add_subplot(grid[0, col])
        tr = [r for r in rows if r["target"] == target]
        lo = min(min(num(r["measured"]), num(r["predicted"])) for r in tr)
        hi = max(max(num(r["measured"]), num(r["predicted"])) for r in tr)
        pad = 0.05 * (hi - lo or hi or 1)
        ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color="#999999",
                linewidth=1, label="predicted = measured")
        values = [v for r in tr for v in (num(r["measured"]),
                                          num(r["predicted"]))]
        if axes_util.pad_narrow(ax, "x", values):
            axes_util.pad_narrow(ax, "y", values)
            ax.set_ylim(ax.get_xlim())
        axes_util.plain_ticks(ax)
        for i, panel in enumerate(panels):
            pr = [r for r in tr if r["panel"] == panel]
            if not pr:
                continue
            apes = [num(r["ape_pct"]) for r in pr]
            ax.scatter([num(r["measured"]) for r in pr],
                       [num(r["predicted"]) for r in pr], s=30,
                       color="C%d" % i, zorder=3,
                       label="%s\nmedian error %.1f%%, max %.1f%%"
                       % (wrap(panel, 45), median(apes), max(apes)))
        unit = tr[0]["unit"]
        ax.set_xlabel("measured epoch %s (%s)" % (target, unit))
        ax.set_ylabel("predicted epoch %s (%s)" % (target, unit))
        ax.set_title("epoch " + target, fontsize=10)
    bars = fig.add_subplot(grid[1, :])
    width = 0.8 / len(targets)
    for j, target in enumerate(targets):
        by_key = {(r["panel"], r["mode"]): num(r["ape_pct"])
                  for r in rows if r["target"] == target}
        bars.barh([i + (j - (len(targets) - 1) / 2) * width
                   for i in range(len(keys))],
                  [by_key.get(k, float("nan")) for k in keys], height=width,
                  color=["#1f77b4", "#ff7f0e"][j % 2],
                  label="epoch " + target)
    bars.set_yticks(range(len(keys)))
    bars.set_yticklabels([("" if len(panels) == 1 else
                           "%d: " % (panels.index(p) + 1)) + m
                          for p, m in keys], fontsize=7)
    bars.invert_yaxis()
    bars.set_xlabel("error on the held-out mode (%)")
    axes_util.plain_ticks(bars)
    head = title
    if len(keys) < len({(r["panel"], r["mode"]) for r in rows}):
        head += " (first %d modes in the bars; all in the CSV)" % len(keys)
    fig.suptitle(provenance_title(head, rows), fontsize=11)
    legend_below(fig, fig.axes, ncol=2)
    return fig


OUTLIER_COLOR = "#d62728"
OUTLIER_COLUMN = {"minibatch_ms": "minibatch_outlier",
                  "energy_j": "energy_outlier"}


def variability(rows, title):
    """Per cell and metric one box per device; a device the variability
    analysis (`powersweep variability`) calls an outlier on that metric
    (column minibatch_outlier / energy_outlier = 1) is drawn in red and
    its tick label says "(outlier)"."""
    need(rows, "variability", "cell", "device_id", "minibatch_ms", "energy_j")
    cells = list(dict.fromkeys(r["cell"] for r in rows))
    shown = cells[:MAX_CELLS]
    metrics = [("minibatch_ms", "minibatch time (ms)"),
               ("energy_j", "energy per run (J)")]
    metrics = [m for m in metrics
               if any(not math.isnan(num(r[m[0]])) for r in rows)]
    fig, axes = plt.subplots(len(shown), len(metrics),
                             figsize=(5.5 * len(metrics),
                                      3.2 * len(shown) + 1.2),
                             squeeze=False)
    jitter = random.Random(1)
    common, short = split_common(shown)
    for row_axes, cell, label_of_cell in zip(axes, shown, short):
        cr = [r for r in rows if r["cell"] == cell]
        devices = list(dict.fromkeys(r["device_id"] for r in cr))
        for ax, (col, label) in zip(row_axes, metrics):
            flag = OUTLIER_COLUMN[col]
            outliers = {r["device_id"] for r in cr
                        if r.get(flag, "") == "1"}
            data = [[num(r[col]) for r in cr if r["device_id"] == d
                     and not math.isnan(num(r[col]))] for d in devices]
            boxes = ax.boxplot(data, widths=0.5)
            for i, (d, vals) in enumerate(zip(devices, data), start=1):
                out = d in outliers
                ax.scatter([i + jitter.uniform(-0.12, 0.12) for _ in vals],
                           vals, s=14 if out else 12,
                           color=OUTLIER_COLOR if out else "#1f77b4",
                           alpha=0.8, zorder=3)
                if out:
                    boxes["boxes"][i - 1].set_color(OUTLIER_COLOR)
                    boxes["boxes"][i - 1].set_linewidth(2)
                    boxes["medians"][i - 1].set_color(OUTLIER_COLOR)
            axes_util.pad_narrow(ax, "y", [v for vals in data for v in vals])
            axes_util.plain_ticks(ax)
            ax.set_xticks(range(1, len(devices) + 1))
            ax.set_xticklabels([d + ("\n(outlier)" if d in outliers else "")
                                for d in devices], rotation=20, fontsize=8)
            for tick, d in zip(ax.get_xticklabels(), devices):
                if d in outliers:
                    tick.set_color(OUTLIER_COLOR)
                    tick.set_fontweight("bold")
            ax.set_ylabel(label)
            ax.set_title(wrap(label_of_cell, 60), fontsize=8)
    head = title
    if common:
        head += "\n" + common
    if len(cells) > len(shown):
        head += " (first %d of %d cells; all in the CSV)" % (len(shown),
                                                             len(cells))
    if any(r.get(f, "") == "1" for r in rows for f in OUTLIER_COLUMN.values()):
        head += "\n(red: outlier device, leave-one-out 95% check of " \
                "`powersweep variability`)"
    fig.suptitle(provenance_title(head, rows), fontsize=11)
    fig.tight_layout()

    def extra():
        # Read back from the drawn tick labels: red, "(outlier)".
        out = []
        for ax in fig.axes:
            for t in ax.get_xticklabels():
                if "(outlier)" in t.get_text() and \
                        t.get_color() == OUTLIER_COLOR:
                    out.append({"cell": ax.get_title().replace("\n", " "),
                                "metric": ax.get_ylabel(),
                                "device": t.get_text().split("\n")[0]})
        return {"outliers_marked": out, "cells": len(shown)}
    fig.powersweep_extra = extra
    return fig


def synthetic_vs_real(rows, title):
    """Throughput per cell on synthetic and on real data (the CLOSER'18
    comparison): one bar per data set, SD over runs as error bars, real
    data's change against synthetic in % at the end of its bar."""
    name = "synthetic_vs_real"
    need(rows, name, "cell", "data", "dataset", "samples_per_s",
         "samples_per_s_sd", "real_vs_synthetic_percent")
    shown = rows[:MAX_BARS]
    common, labels = split_common([r["cell"] for r in shown])
    fig, ax = plt.subplots(figsize=(10, 2.3 + 0.32 * len(shown)))
    y = list(range(len(shown)))
    vals = [num(r["samples_per_s"]) for r in shown]
    errs = [0 if math.isnan(num(r["samples_per_s_sd"]))
            else num(r["samples_per_s_sd"]) for r in shown]
    colors = ["#1f77b4" if r["data"] == "synthetic" else "#ff7f0e"
              for r in shown]
    ax.barh(y, vals, xerr=errs, color=colors, height=0.7, capsize=2)
    widest = max([v + e for v, e in zip(vals, errs) if not math.isnan(v)]
                 or [1])
    for yi, v, e, r in zip(y, vals, errs, shown):
        pct = r["real_vs_synthetic_percent"]
        if pct and not math.isnan(v):
            ax.text(v + e + widest * 0.01, yi, "%+.1f%%" % num(pct),
                    va="center", fontsize=8)
    ax.set_xlim(0, widest * 1.25 if widest > 0 else 1)
    ax.set_yticks(y)
    ax.set_yticklabels([wrap("%s [%s]" % (l, r["dataset"]), 70)
                        for l, r in zip(labels, shown)], fontsize=8)
    ax.invert_yaxis()
    axes_util.plain_ticks(ax)
    ax.set_xlabel("throughput (samples/s, mean and SD over runs)")
    from matplotlib.patches import Patch
    sub = title
    if common:
        sub += "\n" + common
    ax.set_title(provenance_title(sub, rows), fontsize=10)
    fig.tight_layout(rect=(0, 0.5 / fig.get_figheight(), 1, 1))
    fig.legend(handles=[Patch(color="#1f77b4", label="synthetic (no I/O)"),
                        Patch(color="#ff7f0e", label="real data")],
               loc="lower center", ncol=2, fontsize=8, frameon=False)
    return fig


PLOTTERS = {
    "pareto": pareto,
    "minibatch_time": minibatch_time,
    "energy_split": energy_split,
    "distributions": distributions,
    "timeline": timeline,
    "heldout": heldout,
    "variability": variability,
    "synthetic_vs_real": synthetic_vs_real,
}

# The kernel-trace figures live in their own module.
import report_trace_plots  # noqa: E402  (it imports helpers from here)

PLOTTERS.update(report_trace_plots.PLOTTERS)
