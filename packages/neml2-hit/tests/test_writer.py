"""``write`` (canonical text) and ``format_text`` (re-indenting formatter)."""

from __future__ import annotations

import pytest

from neml2.hit import Blank, Comment, Field, HitError, Section, format_text, parse_text, write

MESSY = """# top
E=200e3 # young
    [Models]
[m]     # the model
        type   =   Foo
   v := '1 2
3 4'
 []

  # orphan
[]
[Models/n]
x = 1
[]
[Solvers]
[./s]
  !include  other.i   # kept
[../]
[]
"""

CANONICAL = """# top
E = 200e3 # young
[Models]
  [m] # the model
    type = Foo
    v := '1 2
3 4'
  []

  # orphan
[]
[Models/n]
  x = 1
[]
[Solvers]
  [s]
    !include other.i # kept
  []
[]
"""


def test_format_text_normalizes_indentation() -> None:
    assert format_text(MESSY) == CANONICAL
    assert format_text(CANONICAL) == CANONICAL


def test_format_keeps_duplicates_and_unresolved_substitutions() -> None:
    text = "a = 1\na := ${nowhere}\n"
    assert format_text(text) == text


def test_format_reports_syntax_errors() -> None:
    with pytest.raises(HitError, match="unterminated section"):
        format_text("[a]\n", "f.i")


def test_write_roundtrip_of_parsed_document() -> None:
    root = parse_text(MESSY.replace("  !include  other.i   # kept\n", ""))
    text = write(root)
    assert parse_text(text) == root
    assert write(parse_text(text)) == text


def test_write_programmatic_tree() -> None:
    m = Section("m", [Field("type", "Foo"), Field("v", "1 2"), Field("e", ""), Comment(" c", True)])
    root = Section("", [Section("Models", [m]), Blank(), Field("q", "it's"), Field("w", "'\"x")])
    assert write(root) == (
        "[Models]\n  [m]\n    type = Foo\n    v = '1 2'\n    e = '' # c\n  []\n[]\n\n"
        "q = \"it's\"\nw = ''''\"x'''\n"
    )
    assert parse_text(write(root)) == root


def test_path_header_written_back() -> None:
    text = "[A/b/c]\n  k = 1\n[]\n"
    assert write(parse_text(text)) == text


def test_inline_comment_without_anchor_becomes_own_line() -> None:
    root = Section("", [Comment(" a", True)])
    assert write(root) == "# a\n"


def test_field_value_validation() -> None:
    f = Field("k", "a b")
    assert f.quote == "'"
    with pytest.raises(ValueError, match="value needs quotes"):
        Field("k", "a b", "")
    with pytest.raises(ValueError, match="quote character"):
        Field("k", "a'b", "'")
    with pytest.raises(ValueError, match="cannot be written"):
        Field("k", "'''\"'")
    with pytest.raises(ValueError, match="unknown quote style"):
        Field("k", "a", "`")


def test_equality_ignores_locations_but_not_content() -> None:
    a = parse_text("x = 1 # c\n", "a.i")
    b = parse_text("\n".join(["x   =   1   # c"]) + "\n", "b.i")
    assert a == b
    assert a != parse_text("x = 1 #c\n")
    assert a != parse_text("x := 1 # c\n")
    assert a != parse_text("x = '1' # c\n")
    assert Blank() != Comment("")
    assert Field("x", "1") != Section("x")
