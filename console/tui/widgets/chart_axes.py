"""Round axis ticks from zero for the console's charts.

plotext picks ticks by dividing the data's range evenly, which gives `1666.7` and, with a
sample a little before T0, `-0.248` seconds. A reader wants 0, 1k, 2k, 3k: this picks a
step of 1, 2, 2.5 or 5 times a power of ten and labels it short.
"""

from __future__ import annotations

import math

STEPS = (1.0, 2.0, 2.5, 5.0, 10.0)


def nice_ticks(top: float, count: int = 4) -> list[float]:
    """0 and about `count` round steps up to at least `top` (0..1 for an empty axis)."""
    if top <= 0 or not math.isfinite(top):
        return [0.0, 1.0]
    raw = top / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(s * power for s in STEPS if s * power >= raw)
    n = math.ceil(top / step - 1e-9)
    return [i * step for i in range(n + 1)]


def tick_label(value: float) -> str:
    """`0`, `500`, `2.5k`, `12k`, `1.2M`: short enough for a 6-column axis."""
    for div, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(value) >= div:
            return f"{value / div:.3g}{suffix}"
    return f"{value:.3g}"


def round_axes(plt: object, x_top: float, y_top: float) -> None:
    """Both axes from zero with round ticks (plotext's module-like figure API)."""
    for ticks, lim, set_ticks in (
        (nice_ticks(x_top), plt.xlim, plt.xticks),  # type: ignore[attr-defined]
        (nice_ticks(y_top), plt.ylim, plt.yticks),  # type: ignore[attr-defined]
    ):
        lim(0, ticks[-1])
        set_ticks(ticks, [tick_label(t) for t in ticks])
