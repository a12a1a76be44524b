"""Overrides: pre/post snippets merged by path, command-line ``path/key=value`` tokens."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from neml2.hit import HitError, Section, apply_overrides, parse_text, write

Check = Callable[..., HitError]

BASE = """[Models]
  [m]
    type = Foo
    E = 1
  []
[]
[Models]
  [n]
    type = Bar
  []
[]
[Drivers]
  [d]
    save_as = a.pt
  []
[]
"""


def _value(root: Section, path: str) -> str:
    f = root.find_field(path)
    assert f is not None, path
    return f.value


def test_cli_override_existing_field() -> None:
    root = parse_text(BASE, overrides=["Models/m/E:=210000", "Drivers/d/save_as:=out.pt"])
    assert _value(root, "Models/m/E") == "210000"
    assert _value(root, "Drivers/d/save_as") == "out.pt"
    e = root.find_field("Models/m/E")
    assert e is not None and e.override and e.file == "<command line>"


def test_cli_override_in_repeated_section() -> None:
    root = parse_text(BASE, overrides=["Models/n/type:=Baz"])
    assert _value(root, "Models/n/type") == "Baz"
    assert len(root.sections("Models")) == 2


def test_cli_new_field_and_sections() -> None:
    root = parse_text(BASE, overrides=["Models/m/nu=0.3", "Settings/dynamic_batch=true", "top=1"])
    assert _value(root, "Models/m/nu") == "0.3"
    settings = root.find_section("Settings")
    assert settings is not None and settings.get_bool("dynamic_batch") is True
    assert root.get_int("top") == 1


def test_cli_quoted_and_spaced_values() -> None:
    root = parse_text(
        BASE, overrides=["Models/m/v:='1 2 3'", 'Models/m/w="a b"', "Models/m/z:=4 5"]
    )
    m = root.find_section("Models/m")
    assert m is not None
    assert m.get_int_list("v") == [1, 2, 3]
    assert m.get_str("w") == "a b"
    assert m.get_int_list("z") == [4, 5]
    assert parse_text(write(root)) == root


def test_cli_set_if_absent_with_colon_equals() -> None:
    root = parse_text(BASE, overrides=["Models/m/nu:=0.25"])
    assert _value(root, "Models/m/nu") == "0.25"


def test_cli_plain_equals_on_existing_field(check_error: Check) -> None:
    token = "Models/m/E=5"
    with pytest.raises(HitError) as info:
        parse_text(BASE, overrides=[token])
    check_error(
        info.value,
        file="<command line>",
        line=1,
        col=1,
        reason="field 'E' already exists in [Models/m]: use ':=' to override",
        source=token,
    )


def test_cli_override_path_missing(check_error: Check) -> None:
    with pytest.raises(HitError) as info:
        parse_text(BASE, overrides=["Models/mm/E:=5"])
    check_error(
        info.value,
        file="<command line>",
        line=1,
        col=1,
        reason="override path missing: no section [Models/mm] for 'Models/mm/E:=5'",
    )


@pytest.mark.parametrize(
    ("token", "col", "reason"),
    [
        ("Models/m/E", 1, "expected path/key=value or path/key:=value"),
        ("Models//E=1", 1, "invalid name '' in path"),
        ("Models/m x/E=1", 1, "expected path/key=value"),
        ("=1", 1, "invalid name ''"),
        ("a:='1 2", 4, "unterminated string"),
        ("a:='1 2' 3", 9, "unexpected text after value"),
        ("a:='x\"'''", 8, "unexpected text after value"),
    ],
)
def test_cli_bad_tokens(token: str, col: int, reason: str, check_error: Check) -> None:
    with pytest.raises(HitError) as info:
        parse_text("", overrides=[token])
    check_error(info.value, file="<command line>", line=1, col=col, reason=reason, source=token)


def test_apply_overrides_in_place() -> None:
    root = parse_text(BASE)
    out = apply_overrides(root, ["Models/m/E:=3"])
    assert out is root and _value(root, "Models/m/E") == "3"


def test_post_snippet_merges_by_path() -> None:
    post = "[Models/n]\n  type := Qux\n  extra = 1\n[]\n[New]\n  k = v\n[]\n"
    root = parse_text(BASE, post=post)
    assert _value(root, "Models/n/type") == "Qux"
    assert _value(root, "Models/n/extra") == "1"
    assert _value(root, "New/k") == "v"
    assert len(root.sections("Models")) == 2


def test_post_snippet_duplicate_needs_colon_equals(check_error: Check) -> None:
    with pytest.raises(HitError) as info:
        parse_text(BASE, post="[Models/m]\n  E = 2\n[]\n")
    check_error(info.value, file="<post>", line=2, col=3, reason="duplicate field 'E': use ':='")


def test_pre_snippet_goes_first_and_file_overrides_need_colon_equals(check_error: Check) -> None:
    root = parse_text("a := 2\n[S]\n  y = 1\n[]\n", pre="a = 1\nb = 3\n[S]\n  x = 0\n[]\n")
    assert [f.name for f in root.fields()] == ["a", "b"]
    assert root.get_int("a") == 2 and root.get_int("b") == 3
    s = root.find_section("S")
    assert s is not None and s.field_names() == ["x", "y"]
    with pytest.raises(HitError) as info:
        parse_text("a = 2\n", "f.i", pre="a = 1\n")
    check_error(info.value, file="f.i", line=1, col=1, reason="duplicate field 'a'")


def test_pre_post_and_cli_order() -> None:
    root = parse_text("x = ${y}\n", pre="y = 1\n", post="y := 2\n", overrides=["y:=3"])
    assert root.get_int("x") == 3
