"""``!include``: relative to the including file, nested, cycles, missing files."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from neml2.hit import HitError, parse_file, parse_text
from neml2.hit._files import DEFAULT_MAX_FILE_BYTES

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


# ------------------------------------------------------------------ bounded, regular-only reads
def test_include_of_a_device_is_refused_without_reading(tmp_path: Path) -> None:
    """``!include /dev/zero`` would grow without end: refused as a character device."""
    main = _write(tmp_path / "m.i", "[A]\n  !include /dev/zero\n[]\n")
    with pytest.raises(
        HitError,
        match=r"cannot read include file '/dev/zero': not a regular file \(a character device\)",
    ):
        parse_file(main)


def test_include_of_a_fifo_does_not_block(tmp_path: Path) -> None:
    """Opening a FIFO for reading waits for a writer; the include is refused before that."""
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(HitError, match=r"'pipe': not a regular file \(a FIFO\)"):
        parse_file(_write(tmp_path / "m.i", "!include pipe\n"))


def test_include_through_a_link_to_a_device_is_refused(tmp_path: Path) -> None:
    (tmp_path / "zero.i").symlink_to("/dev/zero")
    with pytest.raises(HitError, match="a character device"):
        parse_file(_write(tmp_path / "m.i", "!include zero.i\n"))


def test_size_limit_is_configurable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    size = len(_write(tmp_path / "big.i", "".join(f"x{i} = 1\n" for i in range(10))).read_bytes())
    main = _write(tmp_path / "m.i", "!include big.i\n")
    monkeypatch.setenv("NEML2_HIT_MAX_FILE_BYTES", str(size - 1))
    with pytest.raises(
        HitError, match=rf"larger than the limit of {size - 1} bytes \(set NEML2_HIT_MAX_FILE_BYTES"
    ):
        parse_file(main)
    monkeypatch.setenv("NEML2_HIT_MAX_FILE_BYTES", str(size))
    assert parse_file(main).find_field("x9") is not None
    monkeypatch.setenv("NEML2_HIT_MAX_FILE_BYTES", "lots")
    with pytest.raises(HitError, match=r"NEML2_HIT_MAX_FILE_BYTES='lots': expected a positive"):
        parse_file(main)


def test_default_limit_bounds_the_top_level_file(tmp_path: Path) -> None:
    """A sparse file just over 16 MiB: refused after reading at most the limit plus one byte."""
    big = tmp_path / "huge.i"
    with big.open("wb") as fh:
        fh.truncate(DEFAULT_MAX_FILE_BYTES + 1)
    with pytest.raises(
        HitError,
        match=rf"cannot read input file .*larger than the limit of {DEFAULT_MAX_FILE_BYTES} bytes",
    ):
        parse_file(big)
    with pytest.raises(HitError, match="larger than the limit"):  # named by the user: any kind
        parse_file("/dev/zero")


def test_errors_in_a_file_outside_the_input_tree_do_not_quote_it(tmp_path: Path) -> None:
    secret = _write(tmp_path / "elsewhere" / "secret.txt", "secret hunter2\n")
    main = _write(tmp_path / "input" / "m.i", "!include ../elsewhere/secret.txt\n")
    with pytest.raises(HitError) as info:
        parse_file(main)
    err = info.value
    assert err.file == str(secret) and err.line == 1
    assert "hunter2" not in str(err)
    assert err.source_line == "(line not shown: the file lies outside the input file's directory)"
    # the same error inside the input's tree quotes the line as usual
    _write(tmp_path / "input" / "sub" / "inc.i", "secret hunter2\n")
    with pytest.raises(HitError) as info:
        parse_file(_write(tmp_path / "input" / "m2.i", "!include sub/inc.i\n"))
    assert info.value.source_line == "secret hunter2"


# ------------------------------------------------------------------ bytes that are not UTF-8
def test_latin1_byte_in_a_comment_is_accepted(tmp_path: Path) -> None:
    """A Latin-1 accent in a comment (a file NEML2 v3 reads) does not stop the parse."""
    path = tmp_path / "m.i"
    path.write_bytes(b"# r\xe9sum\xe9\n[Models]\n  [m]\n    type = Foo # caf\xe9\n  []\n[]\n")
    assert parse_file(path).find_field("Models/m/type").value == "Foo"  # type: ignore[union-attr]


def test_non_utf8_byte_in_a_value_is_located(tmp_path: Path, check_error: Check) -> None:
    path = tmp_path / "m.i"
    path.write_bytes(b"[Models]\n  [m]\n    type = F\xe9o\n  []\n[]\n")
    with pytest.raises(HitError) as info:
        parse_file(path)
    check_error(
        info.value,
        file=str(path),
        line=3,
        col=13,
        reason="byte 0xE9 (file offset 27) in the value of field 'type' is not UTF-8",
        source="    type = F\ufffdo",
    )
    str(info.value).encode("utf-8")  # printable anywhere (the byte shows as U+FFFD)
