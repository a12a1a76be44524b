"""Fuzz: random text and random mutations of valid documents raise nothing but ``HitError``.

Whatever parses must also survive ``write``/``format_text`` round trips and typed reads.
With ``CI`` true: 5,000 random texts + 5,000 mutated sample files + 500 mutated generated
documents (10,500 examples); fewer locally.
"""

from __future__ import annotations

import contextlib
import os

from hit_strategies import texts
from hypothesis import HealthCheck, given, settings, strategies as st

from neml2.hit import Field, HitError, format_text, parse_text, write

_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
_SETTINGS = settings(
    max_examples=5_000 if _CI else 300,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
# relative includes resolve into a directory that does not exist
_FILE = "/nonexistent-neml2-hit-fuzz/input.i"

_TOKENS = [
    "[", "]", "[]", "[../]", "[./", "/", "=", ":=", " := ", " = ", "#", "'", '"', "'''", "${",
    "}", "$", "{", "!include ", "!", " ", "  ", "\t", "\n", "\n", "\r\n", "\r", "a", "b1", "x.y",
    "1e3", "true", "env ", "raw ", "fparse ", "units ", "Models", "m", ";", "'1 2; 3'", "\x00",
    "é", "\u2028", "\x0c",
]  # fmt: skip
_pieces = st.one_of(st.sampled_from(_TOKENS), st.text(max_size=3))
random_texts = st.lists(_pieces, max_size=40).map("".join)

SAMPLE = """# realistic document
E = 200e3
[Tensors]
  [times]
    type = Python
    expr = '''
linspace(0, 1, 5)
'''
  []
[]
[Models/m]
  type = LinearIsotropicElasticity
  coefficients = '${E} 0.3'  # substituted
  shape = '1 2; 3 4'
  flag := true
  path = ${env HOME}${raw a b}
[]
[Drivers]
[./d]
  model = m
[../]
[]
"""


SMALL = """[A]
  x = 1 # one
  y := '${x} 2'

  [b/c]
    z = "q r"
  []
[]
"""

CORPUS = [SAMPLE, SMALL, SAMPLE.replace("\n", "\r\n")]


@st.composite
def mutated(draw: st.DrawFn, base: st.SearchStrategy[str]) -> str:
    """A valid text drawn from ``base`` with 1-4 random edits."""
    text = draw(base)
    for _ in range(draw(st.integers(1, 4))):
        n = len(text)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 12)))
        op = draw(st.sampled_from(["insert", "delete", "replace", "duplicate", "truncate"]))
        if op == "insert":
            text = text[:i] + draw(_pieces) + text[i:]
        elif op == "delete":
            text = text[:i] + text[j:]
        elif op == "replace":
            text = text[:i] + draw(_pieces) + text[j:]
        elif op == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        else:
            text = text[:i]
    return text


def _exercise(text: str, overrides: list[str]) -> None:
    try:
        root = parse_text(text, _FILE, overrides=overrides)
    except HitError:
        with contextlib.suppress(HitError):
            format_text(text, _FILE)
        return
    written = write(root)
    assert parse_text(written, _FILE) == root
    if not overrides:
        assert parse_text(format_text(text, _FILE), _FILE) == root
    for node in root.walk():
        if isinstance(node, Field):
            for read in (node.as_int, node.as_float, node.as_bool, node.as_list):
                with contextlib.suppress(HitError):
                    read()
            for kind in (str, int, float, bool):
                with contextlib.suppress(HitError):
                    node.as_list2d(kind)


@_SETTINGS
@given(random_texts)
def test_random_text_only_raises_hit_error(text: str) -> None:
    _exercise(text, [])


@_SETTINGS
@given(mutated(st.sampled_from(CORPUS)), st.lists(random_texts, max_size=2))
def test_mutated_documents_only_raise_hit_error(text: str, overrides: list[str]) -> None:
    _exercise(text, overrides)


@settings(_SETTINGS, max_examples=500 if _CI else 100)
@given(mutated(texts))
def test_mutated_generated_documents_only_raise_hit_error(text: str) -> None:
    _exercise(text, [])
