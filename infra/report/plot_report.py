#!/usr/bin/python3
"""Draws the figures of `powersweep report` and writes its index.html.

Usage: /usr/bin/python3 plot_report.py DIR

DIR holds what `powersweep report` wrote: figures.csv (figure, drawn,
rows, note), meta.csv (key, value) and FIGURE.csv for every drawn figure
(docs/report.md gives their columns). For each drawn figure this writes
FIGURE.png, FIGURE.svg and FIGURE.json (what the figure drew, read back
from matplotlib: axis scales and limits, tick label texts, offset text,
legend boxes against the axes and their data, point labels, workloads
drawn, outliers marked; docs/report.md), then DIR/index.html with every SVG inline, so
the page needs nothing but itself (no network, no scripts). Figures left
out are listed in the page with the reason. Anything not measured
(provenance "simulated" or "modeled") is said so in the figure's title.

Needs Debian's python3-matplotlib (run with /usr/bin/python3). Exit codes:
0 ok, 2 bad input (a missing file or column, named), 3 matplotlib missing.
"""

import csv
import html
import json
import os
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError as e:  # pragma: no cover - depends on the machine
    sys.stderr.write(
        "error: plot_report.py needs matplotlib (%s): install Debian's "
        "python3-matplotlib (apt-get install python3-matplotlib) and run the "
        "script with /usr/bin/python3\n" % e)
    sys.exit(3)

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import report_axes  # noqa: E402  (after the matplotlib check)
import report_plots  # noqa: E402

TITLES = {
    "pareto": "Time-energy Pareto front per workload",
    "minibatch_time": "Minibatch time: fetch stall, compute, overhead",
    "energy_split": "Energy per run: baseload vs incremental",
    "distributions": "Power and utilization by runtime",
    "timeline": "Power and utilization over time",
    "heldout": "Predicted vs measured on held-out modes",
    "variability": "Per-instance variability",
    "synthetic_vs_real": "Synthetic vs real data: training throughput",
    "trace_syscalls": "Most frequent system calls (kernel traces)",
    "trace_writeback": "Write-backs: intervals and reasons (kernel traces)",
}


class BadInput(Exception):
    pass


def read_csv(path):
    if not os.path.exists(path):
        raise BadInput("%s is missing (run `powersweep report` first)" % path)
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def inline_svg(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start = text.find("<svg")
    if start < 0:
        raise BadInput("%s holds no <svg> element" % path)
    text = text[start:]
    # The RDF metadata names matplotlib's web site; the page needs none.
    meta_start, meta_end = text.find("<metadata>"), text.find("</metadata>")
    if 0 <= meta_start < meta_end:
        text = text[:meta_start] + text[meta_end + len("</metadata>"):]
    return text


def render(out_dir, name, rows, title):
    draw = report_plots.PLOTTERS.get(name)
    if draw is None:
        raise BadInput("figures.csv: unknown figure '%s'" % name)
    fig = draw(rows, title)
    # Unique ids per figure: several SVGs share one page.
    with matplotlib.rc_context({"svg.hashsalt": name}):
        fig.savefig(os.path.join(out_dir, name + ".svg"),
                    metadata={"Date": None})
    fig.savefig(os.path.join(out_dir, name + ".png"), dpi=100)
    # What was drawn, read back from the figure (report_axes.sidecar).
    extra = getattr(fig, "powersweep_extra", None)
    record = report_axes.sidecar(fig, name, extra() if extra else None)
    with open(os.path.join(out_dir, name + ".json"), "w",
              encoding="utf-8") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    plt.close(fig)


PAGE_STYLE = """
body { font-family: 'DejaVu Sans', sans-serif; margin: 2em auto; max-width:
  1100px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
.meta td { padding: 0 1em 0 0; }
.figure .svg svg { max-width: 100%; height: auto; }
.note { color: #444; } .files { font-size: 0.9em; }
.omitted { color: #666; border-left: 3px solid #ccc; padding-left: 1em; }
"""


def write_index(out_dir, meta, figures):
    e = html.escape
    sweep = meta.get("sweep_id", "?")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>powersweep report: sweep %s</title>" % e(sweep),
        "<style>%s</style></head><body>" % PAGE_STYLE,
        "<h1>powersweep report: sweep %s &lsquo;%s&rsquo;</h1>"
        % (e(sweep), e(meta.get("sweep_name", ""))),
        '<table class="meta">',
    ]
    for key in ("runs", "done", "failed", "cancelled", "finished", "models",
                "controller", "generated_utc"):
        if key in meta:
            parts.append("<tr><td>%s</td><td>%s</td></tr>"
                         % (e(key.replace("_", " ")), e(meta[key])))
    parts.append("</table><ul>")
    for f in figures:
        state = "" if f["drawn"] == "1" else " (left out)"
        parts.append('<li><a href="#fig-%s">%s</a>%s</li>'
                     % (e(f["figure"]), e(TITLES.get(f["figure"], f["figure"])),
                        state))
    parts.append("</ul>")
    for f in figures:
        name = f["figure"]
        title = e(TITLES.get(name, name))
        if f["drawn"] != "1":
            parts.append('<section class="omitted" id="fig-%s"><h2>%s</h2>'
                         "<p>Not drawn: %s</p></section>"
                         % (e(name), title, e(f["note"])))
            continue
        svg = inline_svg(os.path.join(out_dir, name + ".svg"))
        parts.append('<section class="figure" id="fig-%s"><h2>%s</h2>'
                     '<div class="svg">%s</div>' % (e(name), title, svg))
        if f["note"]:
            parts.append('<p class="note">%s</p>' % e(f["note"]))
        parts.append('<p class="files"><a href="%s.png">PNG</a> &middot; '
                     '<a href="%s.svg">SVG</a> &middot; <a href="%s.csv">'
                     "data (CSV, %s rows)</a></p></section>"
                     % (e(name), e(name), e(name), e(f["rows"])))
    parts.append("</body></html>\n")
    with open(os.path.join(out_dir, "index.html"), "w", encoding="utf-8") as f:
        f.write("\n".join(parts))


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: /usr/bin/python3 plot_report.py DIR\n")
        return 2
    out_dir = argv[1]
    try:
        figures = read_csv(os.path.join(out_dir, "figures.csv"))
        meta = {r["key"]: r["value"]
                for r in read_csv(os.path.join(out_dir, "meta.csv"))}
        for f in figures:
            if f["drawn"] != "1":
                continue
            rows = read_csv(os.path.join(out_dir, f["figure"] + ".csv"))
            render(out_dir, f["figure"], rows, TITLES.get(f["figure"], ""))
        write_index(out_dir, meta, figures)
    except (BadInput, KeyError, ValueError) as err:
        sys.stderr.write("error: plot_report.py: %s\n" % err)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
