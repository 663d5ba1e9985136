#!/usr/bin/python3
"""Checks what the figures of a `powersweep report` folder drew, from the
FIGURE.json sidecars plot_report.py writes (read back from matplotlib
after drawing), against the FIGURE.csv data the figures were drawn from:

- plain tick labels: no offset text, no exponent in any tick label;
- an axis over values that differ by less than 1% of their magnitude
  spans at least +-4.9% of it (report_axes.py pads to +-5%);
- every legend lies outside every axes;
- the Pareto figure has a panel per workload of pareto.csv, each measured
  mode labelled with its preset's name (else its settings) at its point, no two labels overlapping;
- every bar of minibatch_time / energy_split is at least 3% of its axes'
  width wide (a 0.3 ms bar next to a 230 ms one is not);
- the variability figure marks exactly the devices variability.csv flags.

Used by plot_report_test.py and by tests/integration/report_twin_test.cc
(on a real twin sweep). Run: /usr/bin/python3 figure_checks.py DIR
prints one line per problem and exits 1 when there is any, else prints
what it checked and exits 0.
"""

import csv
import json
import math
import os
import re
import sys

EXPONENT = re.compile(r"\d[eE][+\-]?\d|×|\\times|10\^")


def load(folder, name):
    path = os.path.join(folder, name + ".json")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def rows_of(folder, name):
    with open(os.path.join(folder, name + ".csv"), newline="",
              encoding="utf-8") as f:
        return list(csv.DictReader(f))


def num(text):
    return float(text) if text not in ("", None) else float("nan")


def narrow(values):
    v = [x for x in values if math.isfinite(x)]
    if not v:
        return None
    lo, hi = min(v), max(v)
    mag = max(abs(lo), abs(hi))
    return mag if mag > 0 and hi - lo < 0.01 * mag else None


def check_axes(name, rec, problems):
    for i, ax in enumerate(rec["axes"]):
        for which in ("x", "y"):
            a = ax[which]
            where = "%s axes %d (%s) %s" % (name, i, ax["title"][:40], which)
            if a["uses_offset"] or a["offset_text"]:
                problems.append("%s: offset notation '%s'"
                                % (where, a["offset_text"]))
            for t in a["tick_labels"]:
                if EXPONENT.search(t):
                    problems.append("%s: tick label '%s' not plain"
                                    % (where, t))
    for j, leg in enumerate(rec["legends"]):
        if leg["overlaps_axes"]:
            problems.append("%s: legend %d %s lies over axes %s" % (
                name, j, leg["entries"][:3], leg["overlaps_axes"]))


def check_span(where, limits, values, problems):
    mag = narrow(values)
    if mag is None:
        return
    span = abs(limits[1] - limits[0])
    if span < 2 * 0.049 * mag:
        problems.append("%s: values within 1%% of %.6g drawn over a span of "
                        "%.3g (exaggerates differences)" % (where, mag, span))


def check_pareto(folder, rec, problems):
    rows = rows_of(folder, "pareto")
    panels = list(dict.fromkeys(r["panel"] for r in rows))
    drawn = rec.get("workloads")
    if drawn != panels:
        problems.append("pareto: workloads drawn %s, pareto.csv has %d"
                        % (None if drawn is None else len(drawn),
                           len(panels)))
    labels = rec.get("point_labels", {})
    for panel in panels:
        meas = [r for r in rows if r["panel"] == panel
                and r["kind"] == "measured"]
        got = labels.get(panel, [])
        for r in meas:
            xy = [num(r["time"]), num(r["energy"])]
            name = r.get("preset") or r["mode"]
            if not any(l["text"] == name and
                       all(math.isclose(a, b, rel_tol=1e-6)
                           for a, b in zip(l["xy"], xy)) for l in got):
                problems.append("pareto: %s: measured mode %s has no label"
                                % (panel, name))
        pr = [r for r in rows if r["panel"] == panel]
        ax = next((a for a in rec["axes"]
                   if a["title"].replace("\n", " ") == panel), None)
        if ax is None:
            problems.append("pareto: no panel titled '%s'" % panel)
            continue
        if ax["x"]["scale"] == "linear":
            check_span("pareto %s x" % panel, ax["x"]["limits"],
                       [num(r["time"]) for r in pr], problems)
        if ax["y"]["scale"] == "linear":
            check_span("pareto %s y" % panel, ax["y"]["limits"],
                       [num(r["energy"]) for r in pr], problems)
    if rec.get("label_overlaps", 1) != 0:
        problems.append("pareto: %s pairs of point labels overlap"
                        % rec.get("label_overlaps", "unknown"))


def check_bars(name, rec, problems):
    for i, ax in enumerate(rec["axes"]):
        width = ax["bbox"][2] - ax["bbox"][0]
        for bar in ax["bars"]:
            total = sum(bar["segments_px"].values())
            if total < 0.03 * width:
                problems.append("%s axes %d: bar '%s' is %.1f px of %.0f "
                                "(hidden by the scale)" % (
                                    name, i, bar["bar"][:50], total, width))


def check_variability(folder, rec, problems):
    rows = rows_of(folder, "variability")
    expected = set()
    for r in rows:
        for col, label in (("minibatch_outlier", "minibatch"),
                           ("energy_outlier", "energy")):
            if r.get(col) == "1":
                expected.add((label, r["device_id"]))
    got = {("minibatch" if "minibatch" in m["metric"] else "energy",
            m["device"]) for m in rec.get("outliers_marked", [])}
    if got != expected:
        problems.append("variability: outliers marked %s, variability.csv "
                        "flags %s" % (sorted(got), sorted(expected)))


def check(folder):
    """Problems found (an empty list when every drawn figure passes) and the
    figures checked."""
    problems, checked = [], []
    with open(os.path.join(folder, "figures.csv"), newline="") as f:
        figures = [r["figure"] for r in csv.DictReader(f) if r["drawn"] == "1"]
    for name in figures:
        rec = load(folder, name)
        if rec is None:
            problems.append("%s: no %s.json sidecar" % (name, name))
            continue
        checked.append(name)
        check_axes(name, rec, problems)
        if name == "pareto":
            check_pareto(folder, rec, problems)
        elif name in ("minibatch_time", "energy_split"):
            check_bars(name, rec, problems)
        elif name == "variability":
            check_variability(folder, rec, problems)
    return problems, checked


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: figure_checks.py DIR\n")
        return 2
    problems, checked = check(argv[1])
    for p in problems:
        print("problem: " + p)
    print("checked %d figures: %s" % (len(checked), " ".join(checked)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
