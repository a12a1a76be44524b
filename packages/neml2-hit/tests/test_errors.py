"""Every syntax and substitution error: file:line:col, reason, source line and caret."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from neml2.hit import HitError, parse_text

Check = Callable[..., HitError]

CASES = [
    # (text, line, col, reason)
    ("[Models\n", 1, 1, "unterminated section header: missing ']'"),
    ("[a]\n  x = 'abc\n[]\n", 2, 7, "unterminated string: missing closing ' for field 'x'"),
    ('x = "abc\n', 1, 5, "unterminated string: missing closing \" for field 'x'"),
    ("x = '''abc\n\n", 1, 5, "unterminated string: missing closing ''' for field 'x'"),
    ("[A]\n  [b]\n    x = 1\n  []\n", 1, 1, "unterminated section [A]: missing '[]'"),
    ("[A]\n  [b]\n    x = 1\n", 2, 3, "unterminated section [A/b]: missing '[]'"),
    ("[A/b]\n", 1, 1, "unterminated section [A/b]: missing '[]'"),
    ("[A]\n[]\n  []\n", 3, 3, "stray '[]': no open section to close"),
    ("[../]\n", 1, 1, "stray '[]': no open section to close"),
    ("x$ = 1\n", 1, 1, "invalid field name 'x$'"),
    ("[a]\n  .x = 1\n[]\n", 2, 3, "invalid field name '.x'"),
    ("x 1\n", 1, 3, "missing '=' after field name 'x'"),
    ("  x\n", 1, 4, "missing '=' after field name 'x'"),
    ("x : = 1\n", 1, 3, "missing '=' after field name 'x'"),
    ("= 1\n", 1, 1, "missing field name before '='"),
    ("x =\n", 1, 4, "missing value for field 'x'"),
    ("x = # c\n", 1, 5, "missing value for field 'x'"),
    ("x = 1\ny = 2\nx = 3\n", 3, 1, "duplicate field 'x': use ':=' to override"),
    ("[a]\n  k = 1\n[]\n[b]\n  k = 1\n  k = 1\n[]\n", 6, 3, "duplicate field 'k'"),
    ("x = 1 2\n", 1, 7, "unexpected text after the value of field 'x'"),
    ("x = 'a' b\n", 1, 9, "unexpected text after the value of field 'x'"),
    ("[a] x = 1\n[]\n", 1, 5, "unexpected text after section header"),
    ("[a]]\n[]\n", 1, 4, "unexpected text after section header"),
    ("[a b]\n[]\n", 1, 2, "invalid section name 'a b' in [a b]"),
    ("[a//b]\n[]\n", 1, 2, "invalid section name '' in [a//b]"),
    ("!inclde x.i\n", 1, 1, "unknown directive '!inclde' (only !include is supported)"),
    ("!include\n", 1, 9, "missing file name after !include"),
    ("x = ${E\n", 1, 5, "unterminated brace expression: missing '}'"),
    ("x = a${E\n", 1, 6, "unterminated brace expression: missing '}'"),
    ("x = 'a ${E'\n", 1, 8, "[(root)] field 'x': unterminated brace expression"),
    ("x = ${}\n", 1, 5, "empty brace expression"),
    (
        "[A]\n  x = 1\n  y = ${x}\n[]\n",
        3,
        7,
        "[A] field 'y': brace expression: no parameter 'x' found in tree",
    ),
    ("[A]\n[]\ny = ${A}\n", 3, 5, "brace expression: no parameter 'A' found in tree"),
    ("y = '1 ${fparse 2*3}'\n", 1, 8, "unsupported brace expression '${fparse ...}'"),
    ("y = ${units 1 m -> cm}\n", 1, 5, "fparse and units are not available"),
    ("y = ${foo a b}\n", 1, 5, "unknown brace expression command 'foo'"),
    ("y = ${env}\n", 1, 5, "${env VAR} takes one variable name"),
    ("a = ${b}\nb = ${a}\n", 2, 5, "substitution cycle: a -> b -> a"),
    ("a = ${a}\n", 1, 5, "substitution cycle: a -> a"),
    ("y = '\nline ${z}'\n", 2, 6, "no parameter 'z'"),
]


@pytest.mark.parametrize(("text", "line", "col", "reason"), CASES)
def test_error(text: str, line: int, col: int, reason: str, check_error: Check) -> None:
    with pytest.raises(HitError) as info:
        parse_text(text, "bad.i")
    check_error(info.value, file="bad.i", line=line, col=col, reason=reason)
    assert info.value.source_line == text.split("\n")[line - 1]


def test_error_is_three_lines_and_picklable() -> None:
    import pickle

    err = HitError("boom", "f.i", 2, 3, "ab cd")
    assert str(err) == "f.i:2:3: boom\nab cd\n  ^"
    again = pickle.loads(pickle.dumps(err))
    assert str(again) == str(err) and again.col == 3
    assert isinstance(err, ValueError)


def test_stray_close_reason_is_exact() -> None:
    with pytest.raises(HitError) as info:
        parse_text("[]\n", "x.i")
    assert str(info.value) == "x.i:1:1: stray '[]': no open section to close\n[]\n^"


def test_nesting_depth_limit() -> None:
    from neml2.hit._parser import MAX_DEPTH

    ok = "[a]\n" * MAX_DEPTH + "[]\n" * MAX_DEPTH
    root = parse_text(ok)
    deepest = root
    for _ in range(MAX_DEPTH):
        deepest = deepest.sections()[0]
    assert deepest.path.count("/") == MAX_DEPTH - 1
    with pytest.raises(HitError) as info:
        parse_text("[a]\n" * MAX_DEPTH + "[b/c]\n", "deep.i")
    assert (info.value.line, info.value.col) == (MAX_DEPTH + 1, 1)
    assert f"nested deeper than {MAX_DEPTH} levels" in info.value.reason
