"""Variable names are one word of printable characters: a name with a NUL, another control
character or a non-printable one (a mangled number, a stray byte) is an error naming the file,
block, option and word. Every other word NEML2 v3 takes as a name stays a name."""

from __future__ import annotations

import re

import pytest

from neml2.factory import load_string
from neml2.models._names import variable_name_problem

BLOCK = """[Models]
  [model]
    type = ScalarLinearCombination
    from = '{frm}'
    to = '{to}'
    weights = '{weights}'
  []
[]
"""


def _load(frm: str = "x y", to: str = "z", weights: str = "1 0.3") -> object:
    return load_string(BLOCK.format(frm=frm, to=to, weights=weights)).get_model("model")


@pytest.mark.parametrize(
    ("field", "value", "word", "what"),
    [
        ("weights", "1e\x005 0.3", r"'1e\\x005'", r"a control character \(U\+0000\)"),
        ("frm", "x y\x01", r"'y\\x01'", r"a control character \(U\+0001\)"),
        ("to", "z\x7f", r"'z\\x7f'", r"a control character \(U\+007F\)"),
        ("to", "z\u200b", r"'z\\u200b'", r"a non-printable character \(U\+200B\)"),
    ],
)
def test_bad_names_are_refused_naming_block_option_and_word(
    field: str, value: str, word: str, what: str
) -> None:
    option = "from" if field == "frm" else field
    with pytest.raises(ValueError) as info:
        _load(**{field: value})
    text = str(info.value)
    assert text.startswith("<string>:2: [Models/model] (type='ScalarLinearCombination')"), text
    assert f"option '{option}': " in text
    assert re.search(f"{word} is not a variable name: it contains {what}", text), text


@pytest.mark.parametrize("word", ["abc", "1abc", "a-b", "é", "ab/c", "x~1"])
def test_words_v3_takes_as_names_stay_names(word: str) -> None:
    m = _load(weights=f"{word} 0.3")
    assert list(m.input_spec) == ["x", "y", word]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("name", "problem"),
    [("", "it is empty"), ("a b", "whitespace (U+0020)"), ("a\tb", "whitespace (U+0009)")],
)
def test_rule(name: str, problem: str) -> None:
    assert problem in (variable_name_problem(name) or "")
    assert variable_name_problem("state/internal/ep~1") is None
