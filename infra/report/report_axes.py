"""Axis, legend and label rules shared by the figures of `powersweep
report` (report_plots.py), and the sidecar FIGURE.json that records what
a figure drew, read back from the matplotlib objects after drawing.

Rules (docs/report.md, "How the figures are drawn"):
- Tick labels are plain numbers: no offset ("+4.107e1") and no
  scientific multiplier, on linear and log axes alike.
- A value axis whose data differ by less than NARROW_FRACTION of their
  magnitude is drawn over centre +- PAD_FRACTION of the magnitude, so a
  0.001% difference looks as small as it is.
- Values spanning more than LOG_SPREAD (max / min) are drawn on a log
  axis, or split into panels with their own scale (the bar charts).
- Legends sit outside every axes (figure legends below the plots).
- Point labels are nudged apart until no two overlap.

sidecar(fig, name, extra) returns the JSON-able record of a drawn figure.
"""

import math

import numpy as np
from matplotlib import ticker
from matplotlib.text import Text

NARROW_FRACTION = 0.01   # data range below 1% of the magnitude ...
PAD_FRACTION = 0.05      # ... is shown over centre +- 5% of the magnitude
LOG_SPREAD = 30          # max / min above this: log axis or own panels


def plain_number(value, _pos=None):
    """'0.3', '230', '1.01501': never an exponent."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else ""
    return np.format_float_positional(value, precision=6, unique=True,
                                      fractional=False, trim="-")


def plain_ticks(ax):
    """Plain tick labels on both axes of `ax`, whatever their scale. An
    axis whose ticks the plot labelled itself (set_yticklabels: cell
    names) keeps its labels."""
    for axis, scale in ((ax.xaxis, ax.get_xscale()),
                        (ax.yaxis, ax.get_yscale())):
        fmt = axis.get_major_formatter()
        if isinstance(fmt, ticker.FixedFormatter) or (
                isinstance(fmt, ticker.FuncFormatter) and
                fmt.func is not plain_number):
            continue
        if scale == "log":
            axis.set_major_locator(ticker.LogLocator(subs=(1, 2, 5)))
            axis.set_major_formatter(ticker.FuncFormatter(plain_number))
            axis.set_minor_formatter(ticker.NullFormatter())
        elif scale == "linear":
            fmt = ticker.ScalarFormatter(useOffset=False)
            fmt.set_scientific(False)
            axis.set_major_formatter(fmt)


def spread(values):
    """max / min of the positive finite values (1 when there are none)."""
    v = [x for x in values if x > 0 and math.isfinite(x)]
    return max(v) / min(v) if v else 1


def pad_narrow(ax, which, values):
    """Widens a value axis whose `values` differ by less than
    NARROW_FRACTION of their magnitude to centre +- PAD_FRACTION of it.
    Returns True when it did."""
    v = [x for x in values if math.isfinite(x)]
    if not v:
        return False
    lo, hi = min(v), max(v)
    magnitude = max(abs(lo), abs(hi))
    if magnitude == 0 or hi - lo >= NARROW_FRACTION * magnitude:
        return False
    centre = (lo + hi) / 2
    limits = (centre - PAD_FRACTION * magnitude,
              centre + PAD_FRACTION * magnitude)
    (ax.set_xlim if which == "x" else ax.set_ylim)(*limits)
    return True


def _box(bbox):
    return [round(bbox.x0, 1), round(bbox.y0, 1), round(bbox.x1, 1),
            round(bbox.y1, 1)]


def _overlap(a, b):
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def label_box(ann, renderer):
    """The box of an annotation's text (not its leader line)."""
    ann.update_positions(renderer)
    return Text.get_window_extent(ann, renderer)


def separate_labels(fig, annotations, step_pt=2):
    """Moves overlapping annotations (placed with offset points) down, then
    up, until none overlaps another; each keeps a leader line to its
    point."""
    if len(annotations) < 2:
        return
    renderer = fig.canvas.get_renderer()
    placed = []
    for ann in sorted(annotations, key=lambda a: -label_box(
            a, renderer).y0):
        dx, dy = ann.xyann
        for attempt in range(200):
            box = label_box(ann, renderer)
            if not any(_overlap(box, other) for other in placed):
                break
            # Alternate below and above the point, further each time.
            k = attempt // 2 + 1
            shift = (k * (box.height * 72 / fig.dpi + step_pt))
            ann.xyann = (dx, dy - shift if attempt % 2 == 0 else dy + shift)
        placed.append(label_box(ann, renderer))


def _axis_record(ax, axis, renderer):
    scale = axis.get_scale()
    fmt = axis.get_major_formatter()
    uses_offset = bool(isinstance(fmt, ticker.ScalarFormatter)
                       and (fmt.get_useOffset() and fmt.offset != 0))
    lo, hi = (ax.get_xlim() if axis is ax.xaxis else ax.get_ylim())
    labels = [t.get_text() for t, loc in zip(axis.get_ticklabels(),
                                             axis.get_ticklocs())
              if t.get_visible() and min(lo, hi) <= loc <= max(lo, hi)]
    return {
        "scale": scale,
        "limits": [lo, hi],
        "offset_text": axis.get_offset_text().get_text(),
        "uses_offset": uses_offset,
        "tick_labels": labels,
        "label": axis.get_label().get_text(),
    }


def _data_boxes(ax, renderer):
    """Window extents of what `ax` draws as data: bars, lines, points."""
    boxes = []
    for p in ax.patches:
        if p.get_visible() and p.get_width() * p.get_height() != 0:
            boxes.append(p.get_window_extent(renderer))
    for line in ax.lines:
        if line.get_visible() and len(line.get_xdata()):
            boxes.append(line.get_window_extent(renderer))
    for coll in ax.collections:
        if coll.get_visible():
            ext = coll.get_window_extent(renderer)
            if ext.width > 0 or ext.height > 0:
                boxes.append(ext)
    return boxes


def _bar_records(ax, renderer):
    """Horizontal bar charts: per bar (y tick label) the drawn width in
    pixels of each stacked segment (by its legend label)."""
    names = [t.get_text() for t in ax.get_yticklabels()]
    bars = {}
    for cont in ax.containers:
        label = cont.get_label()
        for j, rect in enumerate(getattr(cont, "patches", [])):
            if j >= len(names) or not rect.get_visible():
                continue
            ext = rect.get_window_extent(renderer)
            clip = ax.get_window_extent(renderer)
            width = max(0.0, min(ext.x1, clip.x1) - max(ext.x0, clip.x0))
            if not math.isfinite(width):
                width = 0.0
            bars.setdefault(names[j], {})[label] = round(width, 2)
    return [{"bar": k, "segments_px": v} for k, v in bars.items()]


def sidecar(fig, name, extra=None):
    """What `fig` drew, from its artists (call after layout; draws once)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    axes = [ax for ax in fig.axes if ax.get_visible()]
    record = {"figure": name, "axes": [], "legends": []}
    for ax in axes:
        record["axes"].append({
            "title": ax.get_title(),
            "bbox": _box(ax.get_window_extent(renderer)),
            "x": _axis_record(ax, ax.xaxis, renderer),
            "y": _axis_record(ax, ax.yaxis, renderer),
            "bars": _bar_records(ax, renderer),
        })
    legends = list(fig.legends) + [ax.get_legend() for ax in axes
                                   if ax.get_legend() is not None]
    for leg in legends:
        box = leg.get_window_extent(renderer)
        over_axes = [i for i, ax in enumerate(axes)
                     if _overlap(box, ax.get_window_extent(renderer))]
        over_data = [i for i, ax in enumerate(axes)
                     if any(_overlap(box, d) for d in _data_boxes(ax,
                                                                  renderer))]
        record["legends"].append({
            "bbox": _box(box),
            "entries": [t.get_text() for t in leg.get_texts()],
            "overlaps_axes": over_axes,
            "overlaps_data": over_data,
        })
    record.update(extra or {})
    return record


def annotation_records(fig, annotations):
    """Per point label: its text, its point, its box; and how many pairs of
    labels overlap (0 when every label is readable)."""
    renderer = fig.canvas.get_renderer()
    boxes = [label_box(a, renderer) for a in annotations]
    overlaps = sum(1 for i in range(len(boxes)) for j in range(i)
                   if _overlap(boxes[i], boxes[j]))
    return [{"text": a.get_text(), "xy": [float(a.xy[0]), float(a.xy[1])],
             "bbox": _box(b)} for a, b in zip(annotations, boxes)], overlaps
