"""``!include``: relative to the including file, nested, cycles, missing files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from neml2.hit import HitError, parse_file, parse_text

Check = Callable[..., HitError]


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_include_relative_and_nested(tmp_path: Path) -> None:
    _write(tmp_path / "sub" / "models.i", "[m]\n  type = Foo\n  !include more/params.i\n[]\n")
    _write(tmp_path / "sub" / "more" / "params.i", "E = 200e3\nnu = 0.3 # Poisson\n")
    main = _write(
        tmp_path / "main.i",
        "top = 1\n[Models]\n  !include sub/models.i  # spliced here\n  [n]\n  []\n[]\n",
    )
    root = parse_file(main)
    m = root.find_section("Models/m")
    assert m is not None and m.get_float("E") == 200e3 and m.get_float("nu") == 0.3
    assert [s.name for s in root.sections()[0].sections()] == ["m", "n"]
    e = m.field("E")
    assert e is not None and e.file == str(tmp_path / "sub" / "more" / "params.i") and e.line == 1
    assert m.file == str(tmp_path / "sub" / "models.i")


def test_include_from_parse_text_uses_filename_dir(tmp_path: Path) -> None:
    _write(tmp_path / "inc.i", "x = 5\n")
    root = parse_text("!include inc.i\ny = ${x}\n", str(tmp_path / "virtual.i"))
    assert root.get_int("y") == 5


def test_include_quoted_path(tmp_path: Path) -> None:
    _write(tmp_path / "a b.i", "x = 1\n")
    root = parse_file(_write(tmp_path / "m.i", "!include 'a b.i'\n"))
    assert root.get_int("x") == 1


def test_include_duplicates_are_checked_across_files(tmp_path: Path, check_error: Check) -> None:
    inc = _write(tmp_path / "inc.i", "x = 1\n")
    main = _write(tmp_path / "m.i", "x = 0\n!include inc.i\n")
    with pytest.raises(HitError) as info:
        parse_file(main)
    check_error(info.value, file=str(inc), line=1, col=1, reason="duplicate field 'x'")
    _write(tmp_path / "over.i", "x := 2\n")
    root = parse_file(_write(tmp_path / "m2.i", "x = 0\n!include over.i\n"))
    assert root.get_int("x") == 2


def test_include_not_found(tmp_path: Path, check_error: Check) -> None:
    main = _write(tmp_path / "m.i", "[A]\n  !include nope/missing.i\n[]\n")
    with pytest.raises(HitError) as info:
        parse_file(main)
    check_error(
        info.value,
        file=str(main),
        line=2,
        col=12,
        reason="include file not found: 'nope/missing.i'",
        source="  !include nope/missing.i",
    )
    assert str(tmp_path / "nope" / "missing.i") in info.value.reason


def test_include_directory_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(HitError, match="cannot read include file 'd'"):
        parse_file(_write(tmp_path / "m.i", "!include d\n"))


def test_include_cycle_names_the_chain(tmp_path: Path, check_error: Check) -> None:
    a = _write(tmp_path / "a.i", "!include sub/b.i\n")
    b = _write(tmp_path / "sub" / "b.i", "x = 1\n!include ../a.i\n")
    with pytest.raises(HitError) as info:
        parse_file(a)
    check_error(info.value, file=str(b), line=2, col=10, reason="include cycle: ")
    assert info.value.reason == f"include cycle: {a} -> {b} -> {a}"


def test_self_include(tmp_path: Path) -> None:
    a = _write(tmp_path / "self.i", "!include self.i\n")
    with pytest.raises(HitError, match="include cycle"):
        parse_file(a)


def test_include_syntax_error_located_in_included_file(tmp_path: Path, check_error: Check) -> None:
    inc = _write(tmp_path / "inc.i", "ok = 1\n[unclosed]\n")
    with pytest.raises(HitError) as info:
        parse_file(_write(tmp_path / "m.i", "!include inc.i\n"))
    check_error(info.value, file=str(inc), line=2, col=1, reason="unterminated section [unclosed]")


def test_input_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(HitError, match="input file not found"):
        parse_file(tmp_path / "missing.i")


def test_same_file_included_twice_is_not_a_cycle(tmp_path: Path) -> None:
    _write(tmp_path / "blk.i", "type = Foo\n")
    root = parse_file(
        _write(tmp_path / "m.i", "[a]\n!include blk.i\n[]\n[b]\n!include blk.i\n[]\n")
    )
    assert root.find_field("a/type") is not None and root.find_field("b/type") is not None
