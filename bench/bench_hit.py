"""Benchmark: ``neml2.hit.parse_file`` on a generated, realistic 10,000-line input file.

Prints ``hit parse 10000 lines: X.XXX s (target < 0.5 s)`` (median of several runs) and exits
non-zero when the median exceeds the target.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from neml2.hit import parse_file

LINES = 10_000
TARGET = 0.5
RUNS = 7


def _model_block(i: int) -> list[str]:
    return [
        f"  # model {i}: a small viscoplastic update",
        f"  [model_{i}]",
        "    type = LinearIsotropicElasticity",
        f"    coefficients = '{200e3 + i:.1f} 0.3'",
        "    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'",
        f"    strain = 'forces/E_{i}'  # total strain",
        f"    stress = state/S_{i}",
        f"    rate_sensitivity = {1.0 + i * 1e-4:.6g}",
        "    orientations = '0.1 0.2 0.3; 0.4 0.5 0.6; 0.7 0.8 0.9'",
        "    jit = true",
        f"    max_its = {10 + i % 5}",
        "  []",
        "",
    ]


def generate(lines: int = LINES) -> str:
    """HIT text of exactly ``lines`` lines: tensors, settings, many models, a driver."""
    head = [
        "# generated benchmark input",
        "E0 = 200e3",
        "[Settings]",
        "  example_batch_shape = '(2; 12)'",
        "[]",
        "[Tensors]",
        "  [times]",
        "    type = Python",
        "    expr = '''",
        "linspace(Scalar(0.0), Scalar(1.0), 100)",
        "'''",
        "  []",
        "[]",
        "[Models]",
    ]
    tail = [
        "[]",
        "[Drivers]",
        "  [driver]",
        "    type = TransientDriver",
        "    model = model_0",
        "    prescribed_time = times",
        "    E = ${E0}",
        "    save_as = 'result.pt'",
        "  []",
        "[]",
    ]
    out = list(head)
    i = 0
    while len(out) + len(tail) + 13 <= lines:
        out += _model_block(i)
        i += 1
    while len(out) + len(tail) < lines:
        out.append("  # padding comment")
    out += tail
    return "\n".join(out) + "\n"


def main() -> int:
    runs = 3 if "--quick" in sys.argv[1:] else RUNS
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.i"
        text = generate()
        assert text.count("\n") == LINES
        path.write_text(text, encoding="utf-8")
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            root = parse_file(path)
            times.append(time.perf_counter() - start)
        assert root.find("Drivers/driver/E") is not None
    median = statistics.median(times)
    print(f"hit parse {LINES} lines: {median:.3f} s (target < {TARGET} s)")
    return 0 if median < TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
