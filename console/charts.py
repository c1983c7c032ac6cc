"""Server-rendered inline SVG charts for the dashboard (no chart library, no JS).

Each builder returns safe markup: labels are escaped, numbers are formatted here. Colours are
SVG presentation attributes (no inline `style=`), sizes are in the viewBox so charts scale with
their container.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

PALETTE = ("#3355cc", "#e07b39", "#2e9d6b", "#b3413f", "#7a5bc7", "#8a8f9c")


def _num(value: float) -> str:
    if value >= 100 or float(value).is_integer():
        return f"{value:,.0f}"
    return f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def _nice_max(value: float) -> float:
    """A round axis maximum ≥ value (1, 2, 2.5, 5 × 10ⁿ)."""
    if value <= 0:
        return 1.0
    magnitude = 10 ** (len(str(int(value))) - 1) if value >= 1 else 0.1
    for step in (1, 2, 2.5, 5, 10):
        if step * magnitude >= value:
            return step * magnitude
    return 10 * magnitude


def bar_chart(
    items: Sequence[tuple[str, float]], *, title: str, unit: str = "", width: int = 420
) -> SafeString:
    """Horizontal bars, one per (label, value), value printed at the end of each bar."""
    if not items:
        return empty_chart(title)
    row, label_w, pad = 26, 110, 8
    height = row * len(items) + pad * 2
    top = max(value for _, value in items) or 1
    bar_space = width - label_w - 70
    parts = [_open(width, height, title)]
    for i, (label, value) in enumerate(items):
        y = pad + i * row
        length = max(1.0, bar_space * value / top) if value else 0
        color = PALETTE[i % len(PALETTE)] if len(items) <= len(PALETTE) else PALETTE[0]
        parts.append(
            f'<text x="{label_w - 8}" y="{y + 17}" text-anchor="end" class="chart-label">'
            f"{escape(label)}</text>"
            f'<rect x="{label_w}" y="{y + 4}" width="{length:.1f}" height="{row - 8}" rx="3" '
            f'fill="{color}"><title>{escape(label)}: {_num(value)}{escape(unit)}</title></rect>'
            f'<text x="{label_w + length + 6:.1f}" y="{y + 17}" class="chart-value">'
            f"{_num(value)}{escape(unit)}</text>"
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every label above is escaped


def column_chart(
    items: Sequence[tuple[str, float]], *, title: str, width: int = 960, height: int = 200
) -> SafeString:
    """Vertical columns over time (e.g. one per day); every 5th label is printed."""
    if not items:
        return empty_chart(title)
    left, bottom, top_pad = 40, 22, 10
    plot_w, plot_h = width - left - 8, height - bottom - top_pad
    top = _nice_max(max(value for _, value in items))
    slot = plot_w / len(items)
    parts = [_open(width, height, title), _y_axis(left, top_pad, plot_w, plot_h, top)]
    step = max(1, len(items) // 6)
    for i, (label, value) in enumerate(items):
        h = plot_h * value / top
        x = left + i * slot
        parts.append(
            f'<rect x="{x + slot * 0.15:.1f}" y="{top_pad + plot_h - h:.1f}" '
            f'width="{slot * 0.7:.1f}" height="{h:.1f}" fill="{PALETTE[0]}">'
            f"<title>{escape(label)}: {_num(value)}</title></rect>"
        )
        if i % step == 0 or i == len(items) - 1:
            parts.append(
                f'<text x="{x + slot / 2:.1f}" y="{height - 6}" text-anchor="middle" '
                f'class="chart-axis">{escape(label)}</text>'
            )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308


def line_chart(
    labels: Sequence[str],
    series: Sequence[tuple[str, Sequence[float | None]]],
    *,
    title: str,
    unit: str = "",
    width: int = 960,
    height: int = 220,
) -> SafeString:
    """One polyline per (name, values) over shared x labels, with a legend; None = gap."""
    values = [v for _, vs in series for v in vs if v is not None]
    if not labels or not values:
        return empty_chart(title)
    left, bottom, top_pad = 64, 22, 26
    plot_w, plot_h = width - left - 24, height - bottom - top_pad
    top = _nice_max(max(values))
    dx = plot_w / max(1, len(labels) - 1)
    parts = [_open(width, height, title), _y_axis(left, top_pad, plot_w, plot_h, top, unit)]
    for i, (name, vs) in enumerate(series):
        color = PALETTE[i % len(PALETTE)]
        points = [
            (left + j * dx, top_pad + plot_h - plot_h * v / top)
            for j, v in enumerate(vs)
            if v is not None
        ]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
        for (x, y), v in zip(points, [v for v in vs if v is not None], strict=True):
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}">'
                f"<title>{escape(name)}: {_num(v)}{escape(unit)}</title></circle>"
            )
        parts.append(
            f'<rect x="{left + i * 90}" y="6" width="10" height="10" fill="{color}"/>'
            f'<text x="{left + i * 90 + 14}" y="15" class="chart-label">{escape(name)}</text>'
        )
    step = max(1, len(labels) // 6)
    for j, label in enumerate(labels):
        if j % step == 0 or j == len(labels) - 1:
            parts.append(
                f'<text x="{left + j * dx:.1f}" y="{height - 6}" text-anchor="middle" '
                f'class="chart-axis">{escape(label)}</text>'
            )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308


def empty_chart(title: str) -> SafeString:
    empty = escape(gettext("No data yet."))
    return mark_safe(  # noqa: S308
        f'<p class="chart-empty" role="img" aria-label="{escape(title)}">{empty}</p>'
    )


def _open(width: int, height: int, title: str) -> str:
    return (
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(title)}</title>"
    )


def _y_axis(left: int, top: int, w: float, h: float, maximum: float, unit: str = "") -> str:
    """Gridlines at 0, ½ and the maximum, with their values."""
    out = []
    for fraction in (0, 0.5, 1):
        y = top + h - h * fraction
        out.append(
            f'<line x1="{left}" x2="{left + w:.1f}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke="#e5e8f0"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" class="chart-axis">'
            f"{_num(maximum * fraction)}{escape(unit)}</text>"
        )
    return "".join(out)
