"""``${...}``: root-relative paths, env, raw, nesting, re-evaluation after overrides."""

from __future__ import annotations

import pytest

from neml2.hit import Field, apply_overrides, parse_text


def test_root_relative_paths() -> None:
    root = parse_text("E = 200e3\n[A]\n  x = 3\n  y = '${E} ${A/x}'\n[]\n[B]\n  z = ${A/y}\n[]\n")
    assert root.find_section("A") is not None
    y = root.find_field("A/y")
    assert y is not None and y.value == "200e3 3" and y.text == "${E} ${A/x}"
    assert y.raw == "'${E} ${A/x}'"
    z = root.find_field("B/z")
    assert z is not None and z.as_list(float) == [200e3, 3.0]


def test_forward_references_and_chains() -> None:
    root = parse_text("a = ${b}\nb = ${c}\nc = 7\n")
    assert [f.as_int() for f in root.fields()] == [7, 7, 7]


def test_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEML2_HIT_TEST_VAR", "hello")
    monkeypatch.delenv("NEML2_HIT_TEST_UNSET", raising=False)
    root = parse_text("a = ${env NEML2_HIT_TEST_VAR}\nb = 'x${env NEML2_HIT_TEST_UNSET}y'\n")
    assert root.get_str("a") == "hello"
    assert root.get_str("b") == "xy"


def test_raw_and_nesting() -> None:
    root = parse_text("n = 4\na = ${raw a b c}\nb = ${raw x ${n} y}\nc = '${raw ${n} ${n}}'\n")
    assert [f.value for f in root.fields()] == ["4", "abc", "x4y", "44"]


def test_triple_quoted_is_verbatim() -> None:
    root = parse_text("a = 1\nb = '''${a}'''\n")
    assert root.get_str("b") == "${a}"


def test_substitution_sees_overrides() -> None:
    text = "E = 1\n[A]\n  x = ${E}\n[]\n"
    root = parse_text(text, overrides=["E:=5"])
    assert root.find_field("A/x") == Field("x", "5", "")
    root = parse_text(text, post="E := 6\n")
    x = root.find_field("A/x")
    assert x is not None and x.value == "6"
    apply_overrides(root, ["E:=7"])
    assert x.value == "7"


def test_dollar_without_brace_is_literal() -> None:
    root = parse_text("a = $x\nb = 'cost $5 {x}'\n")
    assert [f.value for f in root.fields()] == ["$x", "cost $5 {x}"]
