"""Typed getters: accepted spellings, rejected spellings, located error messages."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from hypothesis import given, strategies as st

from neml2.hit import MISSING, Field, HitError, Section, parse_text

Check = Callable[..., HitError]

MODEL = """[Models]
  [m]
    type = Foo
    max_its = 1e3
    flag = True
    ints = '1 2 x'
    rows = '1 2; 3 4; 5'
    gap = '1 2;; 3'
  []
[]
"""


def _m(text: str = MODEL) -> Section:
    m = parse_text(text, "model.i").find_section("Models/m")
    assert m is not None
    return m


@pytest.mark.parametrize("text", ["0", "-7", "+42", "123456789012345678901234567890"])
def test_int_accepts(text: str) -> None:
    assert Field("k", text).as_int() == int(text)


@pytest.mark.parametrize("text", ["1e3", "1.0", "0x10", "1_000", "", "one", " 1", "١"])
def test_int_rejects(text: str) -> None:
    with pytest.raises(HitError, match="expected an integer"):
        Field("k", text, "'").as_int()


@given(st.floats(allow_nan=False))
def test_float_roundtrips_repr(x: float) -> None:
    assert Field("k", repr(x)).as_float() == x


@pytest.mark.parametrize("text", ["200e3", ".5", "-1.E-3", "5.", "+3", "1e+10", "inf", "-Infinity"])
def test_float_accepts(text: str) -> None:
    assert Field("k", text).as_float() == float(text)


def test_float_nan() -> None:
    assert math.isnan(Field("k", "nan").as_float())


@pytest.mark.parametrize("text", ["1e", "e3", "1_0", "1.2.3", "abc", "", "0x1p3"])
def test_float_rejects(text: str) -> None:
    with pytest.raises(HitError, match="expected a number"):
        Field("k", text, "'").as_float()


def test_bool_only_lowercase() -> None:
    assert Field("k", "true").as_bool() is True
    assert Field("k", "false").as_bool() is False
    for bad in ["True", "FALSE", "on", "off", "yes", "no", "1", "0"]:
        with pytest.raises(HitError, match=r"expected a boolean \('true' or 'false'\)"):
            Field("k", bad).as_bool()


def test_lists() -> None:
    f = Field("k", "  1 2\t3\n 4 ")
    assert f.as_list() == ["1", "2", "3", "4"]
    assert f.as_list(int) == [1, 2, 3, 4]
    assert f.as_list(float) == [1.0, 2.0, 3.0, 4.0]
    assert Field("k", "true false").as_list(bool) == [True, False]
    assert Field("k", "", "'").as_list(int) == []


def test_flat_list_keeps_semicolons() -> None:
    assert Field("k", "a b; c").as_list() == ["a", "b;", "c"]


def test_list2d() -> None:
    f = Field("k", "1 2; 3 4;5 6")
    assert f.as_list2d(int) == [[1, 2], [3, 4], [5, 6]]
    assert f.as_list2d() == [["1", "2"], ["3", "4"], ["5", "6"]]
    assert Field("k", "1 2; 3").as_list2d(float) == [[1.0, 2.0], [3.0]]
    assert Field("k", " ", "'").as_list2d(int) == []


def test_unsupported_kind() -> None:
    with pytest.raises(TypeError, match="unsupported HIT value kind"):
        Field("k", "1").as_list(complex)


def test_getter_error_names_location_block_and_field(check_error: Check) -> None:
    with pytest.raises(HitError) as info:
        _m().get_int("max_its")
    check_error(
        info.value,
        file="model.i",
        line=4,
        col=5,
        reason="[Models/m] field 'max_its': expected an integer, got '1e3'",
        source="    max_its = 1e3",
    )
    assert str(info.value) == (
        "model.i:4:5: [Models/m] field 'max_its': expected an integer, got '1e3'\n"
        "    max_its = 1e3\n"
        "    ^"
    )


def test_bool_getter_error(check_error: Check) -> None:
    with pytest.raises(HitError) as info:
        _m().get_bool("flag")
    check_error(info.value, file="model.i", line=5, col=5, reason="[Models/m] field 'flag'")
    assert "got 'True'" in info.value.reason


def test_list_item_errors(check_error: Check) -> None:
    m = _m()
    with pytest.raises(HitError) as info:
        m.get_int_list("ints")
    check_error(info.value, file="model.i", line=6, col=5, reason="got 'x' (item 3)")
    with pytest.raises(HitError) as info:
        m.get_bool_list("ints")
    assert "expected a list of booleans" in info.value.reason
    assert m.get_int_list2d("rows") == [[1, 2], [3, 4], [5]]
    with pytest.raises(HitError) as info:
        m.get_int_list2d("gap")
    check_error(info.value, file="model.i", line=8, col=5, reason="empty row 2")
    with pytest.raises(HitError) as info:
        m.get_float_list2d("ints")
    assert "(row 1, item 3)" in info.value.reason


def test_missing_parameter(check_error: Check) -> None:
    with pytest.raises(HitError) as info:
        _m().get_float("E")
    check_error(
        info.value,
        file="model.i",
        line=2,
        col=3,
        reason="[Models/m] no parameter 'E'",
        source="  [m]",
    )
    root = parse_text("a = 1\n", "r.i")
    with pytest.raises(HitError) as info:
        root.get_str("b")
    check_error(info.value, file="r.i", line=1, col=1, reason="[(root)] no parameter 'b'")


def test_defaults() -> None:
    m = _m()
    assert m.get_int("nope", 3) == 3
    assert m.get_str("nope", None) is None
    assert m.get_float_list("nope", []) == []
    assert m.get_bool("nope", False) is False
    assert m.get_str("type", "other") == "Foo"
    assert repr(MISSING) == "MISSING"


def test_all_getters() -> None:
    text = "s = a\ni = 3\nf = 2.5\nb = false\nsl = 'a b'\nil = '1 2'\nfl = '1 2.5'\n"
    text += "bl = 'true false'\nsl2 = 'a; b'\nil2 = '1; 2'\nfl2 = '1.5; 2'\n"
    r = parse_text(text)
    assert (r.get_str("s"), r.get_int("i"), r.get_float("f"), r.get_bool("b")) == (
        "a",
        3,
        2.5,
        False,
    )
    assert r.get_str_list("sl") == ["a", "b"]
    assert r.get_int_list("il") == [1, 2]
    assert r.get_float_list("fl") == [1.0, 2.5]
    assert r.get_bool_list("bl") == [True, False]
    assert r.get_str_list2d("sl2") == [["a"], ["b"]]
    assert r.get_int_list2d("il2") == [[1], [2]]
    assert r.get_float_list2d("fl2") == [[1.5], [2.0]]
    assert r.require("s").as_str() == "a"
