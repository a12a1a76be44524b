"""Load-layer fuzz: the example and shared scenario inputs, mutated (values replaced by hostile
tokens, lines deleted or repeated, option keys swapped), then every model and driver block
built. Each attempt either builds or raises one of neml2's located input errors (``HitError``,
``InputError``, ``NotRegisteredError``, ``MissingBlockError``, or a ``ValueError``/``TypeError``/
``KeyError``/``RuntimeError`` whose message starts with ``file:line``), within 2 s.

Derandomized (the same examples every run); ``NEML2_FUZZ_EXAMPLES`` sets how many (default 150,
the ``robustness`` nox session runs 1,500).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import warnings
from collections.abc import Iterator
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from neml2.factory import InputError, MissingBlockError, NotRegisteredError, load_string
from neml2.hit import HitError

ROOT = Path(__file__).resolve().parents[4]
FILES = sorted(
    p
    for d in ("examples", "scenarios")
    for p in (ROOT / d).rglob("*.i")
    if "[Models]" in p.read_text()
)
TEXTS = {p: p.read_text() for p in FILES}
VALUES = [
    "-1", "0", "-0", "nan", "inf", "-inf", "1e400", "1e-320", "abc", "''", "'1 2 3'", "'a b'",
    "x~1", "true", "'0 0 0 0 0 0'", "[", "model", "1.5.2", "'''\n'''", "'\x00'", "${x}",
]  # fmt: skip
KEYS = ["from", "to", "model", "models", "variable", "rate", "unknowns", "solver",
        "equation_system", "coefficients", "weights", "type"]  # fmt: skip
FIELD = re.compile(r"^(\s*)([A-Za-z_][A-Za-z0-9_]*)(\s*=\s*)(.*)$", re.M)
LOCATED = re.compile(r"^\S+:\d+")
EXAMPLES = int(os.environ.get("NEML2_FUZZ_EXAMPLES", "150"))

mutation = st.tuples(st.integers(0, 3), st.integers(0, 10**6), st.integers(0, 10**6))


def mutate(text: str, ops: list[tuple[int, int, int]]) -> str:
    for kind, a, b in ops:
        fields = list(FIELD.finditer(text))
        lines = text.split("\n")
        if kind == 0 and fields:
            m = fields[a % len(fields)]
            text = text[: m.start(4)] + VALUES[b % len(VALUES)] + text[m.end(4) :]
        elif kind == 1:
            del lines[a % len(lines)]
            text = "\n".join(lines)
        elif kind == 2:
            lines.insert(a % len(lines), lines[b % len(lines)])
            text = "\n".join(lines)
        elif fields:
            m = fields[a % len(fields)]
            text = text[: m.start(2)] + KEYS[b % len(KEYS)] + text[m.end(2) :]
    return text


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """``TimeoutError`` if the block runs longer than ``seconds`` (a hang, not a slow load)."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"no result within {seconds} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def build_all(text: str, filename: str) -> None:
    """Build every model and driver block; raise the first unexpected error."""
    try:
        factory = load_string(text, filename=filename)
    except (HitError, InputError):
        return
    for section, getter in (("Models", "get_model"), ("Drivers", "get_driver")):
        for name in factory.names(section):
            try:
                getattr(factory, getter)(name)
            except (HitError, InputError, NotRegisteredError, MissingBlockError):
                pass
            except (ValueError, TypeError, KeyError, RuntimeError) as e:
                if not LOCATED.match(str(e)):
                    raise AssertionError(
                        f"[{section}/{name}]: unlocated {type(e).__name__}: {e}"
                    ) from e


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(st.sampled_from(FILES), st.lists(mutation, min_size=1, max_size=3))
def test_mutated_inputs_fail_cleanly(path: Path, ops: list[tuple[int, int, int]]) -> None:
    text = mutate(TEXTS[path], ops)
    with warnings.catch_warnings(), deadline(2.0):
        warnings.simplefilter("ignore")
        build_all(text, str(path))


def test_the_unmutated_inputs_build() -> None:
    """The corpus is sound: every block of every input builds as written."""
    assert len(FILES) >= 25
    for path in FILES:
        factory = load_string(TEXTS[path], filename=str(path))
        for name in factory.names("Models"):
            factory.get_model(name)
