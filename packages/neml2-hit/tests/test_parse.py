"""Parsing: sections, fields, every value kind, comments, blanks, path headers, tree API."""

from __future__ import annotations

from neml2.hit import Blank, Comment, Field, Section, parse_text

DOC = """# header comment
E = 200e3   # trailing comment
[Models]
  [m]
    type = LinearIsotropicElasticity
    coefficients = '1 2 3'
    matrix = "1 2; 3 4"
    flag = true
    expr = '''
x = 1
  y = 'q'
'''
  []
[]

[Models/n]
    nu = 0.3
[]
[Solvers]
[./newton]
  rel_tol = 1e-8
[../]
[]
"""


def test_values_and_quotes() -> None:
    root = parse_text(DOC)
    m = root.find_section("Models/m")
    assert m is not None
    assert m.field("type") == Field("type", "LinearIsotropicElasticity", "")
    assert m.get_str("coefficients") == "1 2 3"
    coeffs = m.field("coefficients")
    assert coeffs is not None and coeffs.quote == "'" and coeffs.raw == "'1 2 3'"
    assert m.get_str("matrix") == "1 2; 3 4"
    assert m.get_bool("flag") is True
    assert m.get_str("expr") == "\nx = 1\n  y = 'q'\n"
    expr = m.field("expr")
    assert expr is not None and expr.quote == "'''"
    assert root.get_float("E") == float("200e3")


def test_trailing_comment_not_part_of_value() -> None:
    root = parse_text("x = 1 # c\ny = 'a # b' # d\n")
    assert root.get_str("x") == "1"
    assert root.get_str("y") == "a # b"
    comments = [c for c in root.children if isinstance(c, Comment)]
    assert [(c.text, c.inline) for c in comments] == [(" c", True), (" d", True)]


def test_comments_and_blanks_kept_in_order() -> None:
    root = parse_text(DOC)
    kinds = [type(c).__name__ for c in root.children]
    assert kinds == [
        "Comment",
        "Field",
        "Comment",
        "Section",
        "Blank",
        "Section",
        "Section",
    ]
    first = root.children[0]
    assert isinstance(first, Comment) and first.text == " header comment" and not first.inline
    assert isinstance(root.children[4], Blank)


def test_path_header_equals_nesting() -> None:
    root = parse_text(DOC)
    n = root.find_section("Models/n")
    assert n is not None and n.path == "Models/n" and n.get_float("nu") == 0.3
    models = root.sections("Models")
    assert len(models) == 2  # repeated top-level sections are separate nodes
    assert models[1].implicit and not n.implicit
    nested = parse_text("[Models]\n[n]\nnu = 0.3\n[]\n[]\n")
    assert nested == parse_text("[Models/n]\nnu = 0.3\n[]\n")


def test_old_style_subsections() -> None:
    root = parse_text(DOC)
    newton = root.find_section("Solvers/newton")
    assert newton is not None and newton.get_float("rel_tol") == 1e-8


def test_locations() -> None:
    root = parse_text(DOC, "doc.i")
    m = root.find_section("Models/m")
    assert m is not None and (m.file, m.line, m.col) == ("doc.i", 4, 3)
    f = m.field("coefficients")
    assert f is not None and (f.line, f.col) == (6, 5)
    after = root.find_field("Models/n/nu")
    assert after is not None and after.line == 17  # line counting survives multi-line strings
    assert (root.path, m.path, f.path) == ("", "Models/m", "Models/m/coefficients")
    assert f.parent is m


def test_find_scans_repeated_sections_first_hit() -> None:
    root = parse_text("[A]\n[x]\nk = 1\n[]\n[]\n[A]\n[y]\nk = 2\n[]\n[x]\nk = 3\n[]\n[]\n")
    assert root.find_field("A/x/k") is not None
    assert root.find_section("A/y") is not None
    k = root.find_field("A/x/k")
    assert k is not None and k.value == "1"
    assert root.find("A/zz") is None and root.find("A/x/k/deeper") is None
    assert root.find("") is root


def test_section_api() -> None:
    root = parse_text("a = 1\nb = 2\n[s]\n[]\n[t]\n[]\n")
    assert root.field_names() == ["a", "b"]
    assert [s.name for s in root.sections()] == ["s", "t"]
    assert root.has_field("a") and not root.has_field("s")
    assert root.section("t") is root.sections()[1] and root.section("zz") is None
    assert [n.path for n in root.walk()] == ["", "a", "b", "s", "t"]
    assert root.to_dict() == {"a": "1", "b": "2", "s": {}, "t": {}}


def test_override_in_same_section() -> None:
    root = parse_text("k = 1\nj = 0\nk := 2\nnew := 3\n")
    assert root.field_names() == ["k", "j", "new"]
    k = root.field("k")
    assert k is not None and k.value == "2" and k.override and k.line == 3
    assert root.get_str("new") == "3"


def test_empty_and_whitespace_documents() -> None:
    assert parse_text("") == Section()
    assert parse_text("\n\n") == Section("", [Blank(), Blank()])
    assert parse_text("   \t") == Section()


def test_crlf_line_endings() -> None:
    assert parse_text("[a]\r\n  x = 1\r\n[]\r\n") == parse_text("[a]\n  x = 1\n[]\n")


def test_empty_quoted_values() -> None:
    root = parse_text("a = ''\nb = \"\"\nc = ''''''\n")
    assert [f.value for f in root.fields()] == ["", "", ""]
    assert [f.quote for f in root.fields()] == ["'", '"', "'''"]


def test_bare_values_with_special_characters() -> None:
    root = parse_text("a = (2;12)\nb = x=y\nc = [1,2]\nd = state/S\ne = $HOME\n")
    assert [f.value for f in root.fields()] == ["(2;12)", "x=y", "[1,2]", "state/S", "$HOME"]
