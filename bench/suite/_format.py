"""Number formatting for the tables."""

from __future__ import annotations


def seconds(t: float) -> str:
    """``t`` seconds with 3 significant digits in µs, ms or s."""
    for scale, unit in ((1e-6, "µs"), (1e-3, "ms")):
        if t < 1000 * scale:
            return f"{t / scale:.3g} {unit}"
    return f"{t:.3g} s"


def batch(n: int) -> str:
    """1, 10^3, ... for powers of ten, else the integer with separators."""
    exp = len(str(n)) - 1
    return f"10^{exp}" if n >= 1000 and n == 10**exp else f"{n:,}"


def rate(x: float, unit: str) -> str:
    """``x`` per second in G``unit``/s with 3 significant digits."""
    return f"{x / 1e9:.3g} G{unit}/s"
