"""Charts drawn on the server as inline SVG (no JavaScript, no charting library): Elo with its
95 % interval as error bars, heat maps (likelihood of superiority, crosstable) with a scale,
counts, tooltips and links, the rating history as a line chart (thinned: ``history_series``),
and a bot's rating across its tournaments. Every label is escaped: entrant names are chosen by
bot owners.

Charts keep their natural size (a figure scrolls sideways on a narrow screen rather than
shrinking the text). The heat maps' colours run from orange (0) through white (50 %) to purple
(1): a scale readable with the common colour-vision deficiencies.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

__all__ = [
    "PALETTE",
    "HeatCell",
    "TimelinePoint",
    "elo_bars",
    "heat_map",
    "history_series",
    "line_chart",
    "timeline",
]

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


def _svg(label: str, width: float, height: float, cls: str = "chart") -> str:
    return (
        f'<svg class="{cls}" role="img" aria-label="{escape(label)}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" width="{width:.0f}" height="{height:.0f}">'
        f"<title>{escape(label)}</title>"
    )


def _ticks(lo: float, hi: float, count: int = 6) -> list[float]:
    raw = (hi - lo) / count
    step = next(
        (s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000) if s >= raw),
        10.0 ** len(str(int(raw))),
    )
    start = (int(lo // step) + 1) * step
    return [start + i * step for i in range(count + 2) if start + i * step < hi]


def _y_grid(
    lo: float, hi: float, y: Callable[[float], float], left: float, right: float
) -> list[str]:
    """Horizontal grid lines with their values, for a vertical axis from ``lo`` to ``hi``."""
    return [
        f'<line x1="{left}" y1="{y(tick):.1f}" x2="{right}" y2="{y(tick):.1f}" class="grid"/>'
        f'<text x="{left - 4}" y="{y(tick) + 4:.1f}" text-anchor="end" class="tick">'
        f"{tick:.0f}</text>"
        for tick in _ticks(lo, hi, 5)
    ]


def elo_bars(
    rows: Sequence[tuple[str, float | None, float | None, float | None]], *, width: int = 560
) -> Markup:
    """One line per ``(entrant, elo, lo, hi)``: a dot at the rating and a bar over its 95 %
    interval, on a shared axis with its title."""
    rated = [r for r in rows if r[1] is not None]
    if not rated:
        return Markup('<p class="muted">No ratings yet.</p>')
    lows = [r[2] if r[2] is not None else r[1] for r in rated]
    highs = [r[3] if r[3] is not None else r[1] for r in rated]
    lo, hi = min(lows) - 20, max(highs) + 20
    x = _scale(lo, hi, _LABEL_W, width - 20)
    line_h = 26
    plot_h = line_h * len(rated) + 6
    height = plot_h + 40
    parts = [_svg("Elo with 95% intervals", width, height)]
    for tick in _ticks(lo, hi):
        tx = x(tick)
        parts.append(
            f'<line x1="{tx:.1f}" y1="0" x2="{tx:.1f}" y2="{plot_h}" class="grid"/>'
            f'<text x="{tx:.1f}" y="{plot_h + 14}" text-anchor="middle" class="tick">'
            f"{tick:.0f}</text>"
        )
    parts.append(
        f'<text x="{(_LABEL_W + width - 20) / 2:.0f}" y="{height - 4}" text-anchor="middle" '
        'class="axis-title">Elo (bar: 95 % interval)</text>'
    )
    for i, (name, elo, e_lo, e_hi) in enumerate(rated):
        cy = 16 + i * line_h
        a = x(e_lo if e_lo is not None else elo)
        b = x(e_hi if e_hi is not None else elo)
        span = "" if e_lo is None or e_hi is None else f" ({e_lo:.0f} to {e_hi:.0f})"
        parts.append(
            f"<g><title>{escape(name)}: {elo:.0f}{span}</title>"
            f'<text x="{_LABEL_W - 8}" y="{cy + 4}" text-anchor="end">{i + 1}. '
            f"{escape(_short(name, 18))}</text>"
            f'<line x1="{a:.1f}" y1="{cy}" x2="{b:.1f}" y2="{cy}" class="bar"/>'
            f'<line x1="{a:.1f}" y1="{cy - 5}" x2="{a:.1f}" y2="{cy + 5}" class="bar"/>'
            f'<line x1="{b:.1f}" y1="{cy - 5}" x2="{b:.1f}" y2="{cy + 5}" class="bar"/>'
            f'<circle cx="{x(elo):.1f}" cy="{cy}" r="5" class="dot"/></g>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def _heat(value: float) -> str:
    """Orange (#b35806) at 0, white at 0.5, purple (#542788) at 1."""
    v = max(0.0, min(1.0, value))
    end, t = ((84, 39, 136), (v - 0.5) * 2) if v >= 0.5 else ((179, 88, 6), (0.5 - v) * 2)
    r, g, b = (round(247 + (e - 247) * t) for e in end)
    return f"rgb({r},{g},{b})"


@dataclass(frozen=True)
class HeatCell:
    """One cell of a heat map: a value in [0, 1], the games behind it, a tooltip."""

    value: float | None
    games: int
    tip: str


def heat_map(
    labels: Sequence[str],
    cell: Callable[[str, str], HeatCell],
    *,
    title: str,
    href: Callable[[str, str], str | None] | None = None,
    size: int = 48,
) -> Markup:
    """A square matrix, row entrant against column entrant, both numbered in ``labels``'
    order (1, 2, ...: the same numbers as the row names): the value as a colour and a
    percentage, the games behind it, a tooltip, and with ``href`` a link per cell. A scale
    shows what the colours mean; the diagonal is blank."""
    n = len(labels)
    if n == 0:
        return Markup('<p class="muted">No entrants.</p>')
    top, left = 30, _LABEL_W
    width, height = max(left + size * n + 8, left + 250), top + size * n + 58
    parts = [_svg(title, width, height, "chart heat")]
    parts.append(
        f'<text x="{left + size * n / 2:.0f}" y="11" text-anchor="middle" '
        'class="axis-title">opponent (column)</text>'
    )
    for j, b in enumerate(labels):
        parts.append(
            f"<g><title>{j + 1}. {escape(b)}</title>"
            f'<text x="{left + j * size + size / 2:.0f}" y="{top - 4}" text-anchor="middle" '
            f'class="column">{j + 1}</text></g>'
        )
    for i, a in enumerate(labels):
        y = top + i * size
        parts.append(
            f"<g><title>{escape(a)}</title>"
            f'<text x="{left - 8}" y="{y + size / 2 + 4:.0f}" text-anchor="end" class="row">'
            f"{i + 1}. {escape(_short(a, 17))}</text></g>"
        )
        for j, b in enumerate(labels):
            x = left + j * size
            if a == b:
                parts.append(
                    f'<rect x="{x}" y="{y}" width="{size - 2}" height="{size - 2}" '
                    'fill="#ddd" opacity=".4"/>'
                )
                continue
            c = cell(a, b)
            fill = "#eee" if c.value is None else _heat(c.value)
            text = "-" if c.value is None else f"{100 * c.value:.0f}%"
            ink = " on-dark" if c.value is not None and abs(c.value - 0.5) > 0.3 else ""
            body = (
                f'<rect x="{x}" y="{y}" width="{size - 2}" height="{size - 2}" fill="{fill}"/>'
                f"<title>{escape(c.tip)}</title>"
                f'<text x="{x + size / 2 - 1:.0f}" y="{y + size / 2 - 1:.0f}" '
                f'text-anchor="middle" class="cell-text{ink}">{text}</text>'
                f'<text x="{x + size / 2 - 1:.0f}" y="{y + size / 2 + 12:.0f}" '
                f'text-anchor="middle" class="cell-count{ink}">{c.games} g</text>'
            )
            link = href(a, b) if href else None
            if link:
                parts.append(f'<a href="{escape(link)}" class="heat-cell">{body}</a>')
            else:
                parts.append(f'<g class="heat-cell">{body}</g>')
    scale_y, scale_w = top + size * n + 14, 200
    steps = 10
    for k in range(steps):
        parts.append(
            f'<rect x="{left + k * scale_w / steps:.1f}" y="{scale_y}" '
            f'width="{scale_w / steps + 0.5:.1f}" height="10" fill="{_heat(k / (steps - 1))}"/>'
        )
    for frac, word in ((0, "0%"), (0.5, "50%"), (1, "100%")):
        parts.append(
            f'<text x="{left + frac * scale_w:.0f}" y="{scale_y + 24}" text-anchor="middle" '
            f'class="tick">{word}</text>'
        )
    parts.append(
        f'<text x="{left - 8}" y="{scale_y + 9}" text-anchor="end" class="tick">scale</text>'
        f'<text x="{left}" y="{scale_y + 40}" class="tick">"g": games the two met in</text>'
        "</svg>"
    )
    return Markup("".join(parts))


def history_series(
    history: Sequence[tuple[int, str, float]], entrants: Sequence[str], *, points: int = 200
) -> dict[str, list[tuple[int, float]]]:
    """Each entrant's incremental Elo after its games (``history``: rows of plan index,
    entrant and rating), thinned for ``line_chart`` to about ``points`` points per entrant (a
    row every so often, then each entrant's last row): linear in the points kept, not in the
    history's length."""
    stride = max(1, len(history) // (points * max(1, len(entrants))))
    if stride > 1 and stride % 2 == 0:
        stride += 1  # an odd stride does not keep landing on the same seat
    by_entrant: dict[str, list[tuple[int, float]]] = {}
    for index, entrant, rating in history[::stride]:
        by_entrant.setdefault(entrant, []).append((index, rating))
    seen: set[str] = set()
    for index, entrant, rating in reversed(history):
        if entrant not in seen:
            seen.add(entrant)
            series = by_entrant.setdefault(entrant, [])
            if not series or series[-1][0] != index:
                series.append((index, rating))
            if len(seen) == len(entrants):
                break
    return {e: by_entrant[e] for e in entrants if e in by_entrant}


def line_chart(
    series: Mapping[str, Sequence[tuple[int, float]]],
    *,
    width: int = 560,
    height: int = 260,
    x_title: str = "games played (plan order)",
    y_title: str = "incremental Elo",
    pad: float = 10.0,
) -> Markup:
    """One line per entrant (x: game number in plan order, y: rating), with dots at the
    points when they are few, axis titles (``y_title``: what the values are) and a legend;
    ``pad``: room above and below the values, in their unit."""
    points = [p for s in series.values() for p in s]
    if not points:
        return Markup('<p class="muted">No rating history yet.</p>')
    x0, x1 = min(p[0] for p in points), max(p[0] for p in points)
    y0, y1 = min(p[1] for p in points) - pad, max(p[1] for p in points) + pad
    left, bottom = 58, 40
    legend_h = 20 * ((len(series) + 1) // 2) + 8
    plot_h = height - bottom
    total_h = height + legend_h
    lo_x, hi_x = (x0 - 1, x1 + 1) if x1 == x0 else (x0, x1)
    x = _scale(lo_x, hi_x, left, width - 12)
    y = _scale(y0, y1, plot_h, 8)
    parts = [_svg("rating history", width, total_h), *_y_grid(y0, y1, y, left, width - 12)]
    x_ticks = sorted({x0, x1, *(int(t) for t in _ticks(lo_x, hi_x, 5) if x0 <= t <= x1)})
    for tick in x_ticks:
        parts.append(
            f'<line x1="{x(tick):.1f}" y1="{plot_h}" x2="{x(tick):.1f}" y2="{plot_h + 4}" '
            f'class="grid"/><text x="{x(tick):.1f}" y="{plot_h + 16}" text-anchor="middle" '
            f'class="tick">{tick}</text>'
        )
    parts.append(
        f'<text x="{(left + width) / 2:.0f}" y="{plot_h + 34}" text-anchor="middle" '
        f'class="axis-title">{escape(x_title)}</text>'
        f'<text transform="translate(14 {plot_h / 2:.0f}) rotate(-90)" text-anchor="middle" '
        f'class="axis-title">{escape(y_title)}</text>'
    )
    few = len(points) <= 3 * max(1, len(series)) * 4
    for k, (name, line) in enumerate(series.items()):
        colour = PALETTE[k % len(PALETTE)]
        coords = " ".join(f"{x(a):.1f},{y(b):.1f}" for a, b in line)
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{coords}">'
            f"<title>{escape(name)}</title></polyline>"
        )
        shown = line if few else line[-1:]
        for a, b in shown:
            parts.append(
                f'<circle cx="{x(a):.1f}" cy="{y(b):.1f}" r="3.5" fill="{colour}">'
                f"<title>{escape(name)}: {b:.0f} after game {a}</title></circle>"
            )
        lx, ly = left + (k % 2) * ((width - left) // 2), height + 14 + (k // 2) * 20
        parts.append(
            f'<rect x="{lx}" y="{ly - 9}" width="14" height="5" fill="{colour}"/>'
            f'<text x="{lx + 18}" y="{ly - 3}">{escape(_short(name, 30))}</text>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))


@dataclass(frozen=True)
class TimelinePoint:
    """A bot's rating in one tournament: where it goes on the time axis, the rating and its
    95 % interval, a tooltip, and its ``series`` (the game: ratings of different games are not
    on one scale, so only points of one series are joined)."""

    label: str
    elo: float
    lo: float | None
    hi: float | None
    tip: str
    href: str | None = None
    series: str = ""


def timeline(points: Sequence[TimelinePoint], *, height: int = 240) -> Markup:
    """A bot's rating in each of its tournaments, oldest first (x), with 95 % intervals; a
    line joins a point to the previous one of its series only (its game)."""
    if not points:
        return Markup('<p class="muted">No rated tournament yet.</p>')
    step, left, bottom = 64, 58, 56
    width = max(360, left + step * len(points) + 20)
    lows = [p.lo if p.lo is not None else p.elo for p in points]
    highs = [p.hi if p.hi is not None else p.elo for p in points]
    y0, y1 = min(lows) - 20, max(highs) + 20
    plot_h = height - bottom
    y = _scale(y0, y1, plot_h, 8)
    parts = [_svg("rating in each tournament", width, height), *_y_grid(y0, y1, y, left, width - 8)]
    parts.append(
        f'<text transform="translate(14 {plot_h / 2:.0f}) rotate(-90)" text-anchor="middle" '
        'class="axis-title">Elo (bar: 95 % interval)</text>'
        f'<text x="{(left + width) / 2:.0f}" y="{height - 4}" text-anchor="middle" '
        'class="axis-title">tournaments, oldest first</text>'
    )
    previous: dict[str, tuple[float, float]] = {}
    for i, p in enumerate(points):
        cx = left + step * i + step / 2
        before = previous.get(p.series)
        if before is not None:
            parts.append(
                f'<line x1="{before[0]:.1f}" y1="{before[1]:.1f}" x2="{cx:.1f}" '
                f'y2="{y(p.elo):.1f}" class="grid joins"/>'
            )
        previous[p.series] = (cx, y(p.elo))
        body = f"<title>{escape(p.tip)}</title>"
        if p.lo is not None and p.hi is not None:
            body += (
                f'<line x1="{cx:.1f}" y1="{y(p.lo):.1f}" x2="{cx:.1f}" y2="{y(p.hi):.1f}" '
                'class="bar"/>'
            )
        body += (
            f'<circle cx="{cx:.1f}" cy="{y(p.elo):.1f}" r="5" class="dot"/>'
            f'<text x="{cx:.1f}" y="{plot_h + 16}" text-anchor="middle" class="tick">'
            f"{escape(_short(p.label, 10))}</text>"
        )
        if p.href:
            parts.append(f'<a href="{escape(p.href)}">{body}</a>')
        else:
            parts.append(f"<g>{body}</g>")
    parts.append("</svg>")
    return Markup("".join(parts))
