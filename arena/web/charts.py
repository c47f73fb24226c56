"""Charts drawn on the server as inline SVG (no JavaScript, no charting library): Elo with its
95 % interval as error bars, heat maps (likelihood of superiority, crosstable) and the rating
history as a line chart. Every label is escaped: entrant names are chosen by bot owners.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from markupsafe import Markup, escape

__all__ = ["PALETTE", "elo_bars", "heat_map", "line_chart"]

PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#7f7f7f",
    "#bcbd22",
)
_LABEL_W = 150


def _short(text: str, limit: int = 22) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _scale(lo: float, hi: float, x0: float, x1: float) -> Callable[[float], float]:
    span = (hi - lo) or 1.0
    return lambda v: x0 + (v - lo) / span * (x1 - x0)


def elo_bars(
    rows: Sequence[tuple[str, float | None, float | None, float | None]], *, width: int = 640
) -> Markup:
    """One line per ``(entrant, elo, lo, hi)``: a dot at the rating and a bar over its 95 %
    interval, on a shared axis."""
    rated = [r for r in rows if r[1] is not None]
    if not rated:
        return Markup('<p class="muted">No ratings yet.</p>')
    lows = [r[2] if r[2] is not None else r[1] for r in rated]
    highs = [r[3] if r[3] is not None else r[1] for r in rated]
    lo, hi = min(lows) - 20, max(highs) + 20
    x = _scale(lo, hi, _LABEL_W, width - 20)
    line_h, height = 24, 24 * len(rated) + 30
    parts = [
        (
            f'<svg class="chart" role="img" aria-label="Elo with 95% intervals" '
            f'viewBox="0 0 {width} {height}" width="{width}" height="{height}">'
        )
    ]
    for tick in _ticks(lo, hi):
        tx = x(tick)
        parts.append(
            f'<line x1="{tx:.1f}" y1="0" x2="{tx:.1f}" y2="{height - 20}" '
            f'class="grid"/><text x="{tx:.1f}" y="{height - 6}" '
            f'text-anchor="middle" class="tick">{tick:.0f}</text>'
        )
    for i, (name, elo, e_lo, e_hi) in enumerate(rated):
        cy = 16 + i * line_h
        a = x(e_lo if e_lo is not None else elo)
        b = x(e_hi if e_hi is not None else elo)
        parts.append(
            f'<text x="{_LABEL_W - 8}" y="{cy + 4}" text-anchor="end">{escape(_short(name))}'
            f'</text><line x1="{a:.1f}" y1="{cy}" x2="{b:.1f}" y2="{cy}" class="bar"/>'
            f'<line x1="{a:.1f}" y1="{cy - 5}" x2="{a:.1f}" y2="{cy + 5}" class="bar"/>'
            f'<line x1="{b:.1f}" y1="{cy - 5}" x2="{b:.1f}" y2="{cy + 5}" class="bar"/>'
            f'<circle cx="{x(elo):.1f}" cy="{cy}" r="4" class="dot">'
            f"<title>{escape(name)}: {elo:.0f}</title></circle>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def _ticks(lo: float, hi: float, count: int = 6) -> list[float]:
    raw = (hi - lo) / count
    step = next(
        (s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000) if s >= raw), 1000.0
    )
    start = (int(lo // step) + 1) * step
    return [start + i * step for i in range(count + 1) if start + i * step < hi]


def _heat(value: float) -> str:
    """White at 0.5, green towards 1, red towards 0."""
    v = max(0.0, min(1.0, value))
    if v >= 0.5:
        t = (v - 0.5) * 2
        return f"rgb({int(255 - 155 * t)},{int(255 - 55 * t)},{int(255 - 155 * t)})"
    t = (0.5 - v) * 2
    return f"rgb({int(255 - 35 * t)},{int(255 - 155 * t)},{int(255 - 155 * t)})"


def heat_map(
    labels: Sequence[str], value: Callable[[str, str], float | None], *, title: str, cell: int = 44
) -> Markup:
    """A square matrix, row entrant against column entrant: ``value`` in [0, 1] as a colour
    (red 0, white 0.5, green 1) and as a percentage; the diagonal and missing values blank."""
    n = len(labels)
    if n == 0:
        return Markup('<p class="muted">No entrants.</p>')
    top = 24
    width, height = _LABEL_W + cell * n + 4, top + cell * n + 4
    parts = [
        (
            f'<svg class="chart heat" role="img" aria-label="{escape(title)}" '
            f'viewBox="0 0 {width} {height}" width="{width}" height="{height}">'
        )
    ]
    for j in range(n):
        parts.append(
            f'<text x="{_LABEL_W + j * cell + cell / 2:.0f}" y="16" '
            f'text-anchor="middle">{j + 1}</text>'
        )
    for i, a in enumerate(labels):
        y = top + i * cell
        parts.append(
            f'<text x="{_LABEL_W - 8}" y="{y + cell / 2 + 4:.0f}" text-anchor="end">'
            f"{i + 1}. {escape(_short(a, 18))}</text>"
        )
        for j, b in enumerate(labels):
            v = None if a == b else value(a, b)
            fill = "#eee" if v is None else _heat(v)
            x = _LABEL_W + j * cell
            text = "" if v is None else f"{100 * v:.0f}"
            tip = "" if v is None else f"<title>{escape(a)} vs {escape(b)}: {text}%</title>"
            parts.append(
                f'<g><rect x="{x}" y="{y}" width="{cell - 2}" height="{cell - 2}" '
                f'fill="{fill}"/>{tip}<text x="{x + cell / 2 - 1:.0f}" '
                f'y="{y + cell / 2 + 4:.0f}" text-anchor="middle">{text}</text></g>'
            )
    parts.append("</svg>")
    return Markup("".join(parts))


def line_chart(
    series: Mapping[str, Sequence[tuple[int, float]]], *, width: int = 640, height: int = 280
) -> Markup:
    """One line per entrant (x: game number in plan order, y: rating), with a legend."""
    points = [p for s in series.values() for p in s]
    if not points:
        return Markup('<p class="muted">No rating history yet.</p>')
    x0, x1 = min(p[0] for p in points), max(p[0] for p in points)
    y0, y1 = min(p[1] for p in points) - 10, max(p[1] for p in points) + 10
    left, bottom, legend_h = 50, 20, 18 * ((len(series) + 2) // 3) + 12
    plot_h = height - bottom
    height += legend_h
    x = _scale(x0, x1 if x1 > x0 else x0 + 1, left, width - 10)
    y = _scale(y0, y1, plot_h, 8)
    parts = [
        (
            f'<svg class="chart" role="img" aria-label="rating history" '
            f'viewBox="0 0 {width} {height}" width="{width}" height="{height}">'
        )
    ]
    for tick in _ticks(y0, y1, 5):
        parts.append(
            f'<line x1="{left}" y1="{y(tick):.1f}" x2="{width - 10}" '
            f'y2="{y(tick):.1f}" class="grid"/><text x="{left - 4}" '
            f'y="{y(tick) + 4:.1f}" text-anchor="end" class="tick">{tick:.0f}</text>'
        )
    parts.append(
        f'<text x="{width - 10}" y="{plot_h + 14}" text-anchor="end" class="tick">'
        f'game {x1}</text><text x="{left}" y="{plot_h + 14}" class="tick">game {x0}'
        "</text>"
    )
    for k, (name, line) in enumerate(series.items()):
        colour = PALETTE[k % len(PALETTE)]
        coords = " ".join(f"{x(a):.1f},{y(b):.1f}" for a, b in line)
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="1.8" '
            f'points="{coords}"><title>{escape(name)}</title></polyline>'
        )
        lx, ly = left + (k % 3) * ((width - left) // 3), plot_h + 32 + (k // 3) * 18
        parts.append(
            f'<rect x="{lx}" y="{ly - 9}" width="12" height="4" fill="{colour}"/>'
            f'<text x="{lx + 16}" y="{ly - 3}">{escape(_short(name, 26))}</text>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))
