"""Property: ``parse_text(write(tree)) == tree`` for generated documents (all value kinds,
quoting styles, nested/repeated/path-header sections, comments, blanks, ``:=``)."""

from __future__ import annotations

import os

from hit_strategies import documents, values
from hypothesis import HealthCheck, given, settings, strategies as st

from neml2.hit import Field, Section, apply_overrides, format_text, parse_text, write

_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
_SETTINGS = settings(
    max_examples=300 if _CI else 60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@_SETTINGS
@given(documents)
def test_write_parse_roundtrip(root: Section) -> None:
    text = write(root)
    again = parse_text(text)
    assert again == root
    assert write(again) == text


@_SETTINGS
@given(documents)
def test_format_text_is_identity_on_canonical_text(root: Section) -> None:
    text = write(root)
    assert format_text(text) == text


@_SETTINGS
@given(documents, st.data())
def test_cli_override_then_roundtrip(root: Section, data: st.DataObject) -> None:
    fields = [n for n in root.walk() if isinstance(n, Field)]
    if not fields:
        return
    target = data.draw(st.sampled_from(fields))
    value = data.draw(values.filter(lambda v: "\n" not in v and v.strip() == v and v != ""))
    if '"' in value and "'" in value:
        return  # no quote style can hold both on one command-line token
    # quote the token only when the value holds a quote character (a shell would have removed
    # the outer quotes of a plain value); a bare `"` would open an unterminated string
    if "'" in value:
        token_value = f'"{value}"'
    elif '"' in value:
        token_value = f"'{value}'"
    else:
        token_value = value
    # the path through repeated sections resolves to the first hit, as lookups do
    path = target.path
    hit = root.find_field(path)
    assert hit is not None
    apply_overrides(root, [f"{path}:={token_value}"])
    assert hit.value == value and hit.override
    assert parse_text(write(root)) == root


@_SETTINGS
@given(
    st.lists(st.lists(st.floats(allow_nan=False), min_size=1, max_size=4), min_size=1, max_size=4),
    st.lists(st.integers(), max_size=6),
)
def test_typed_lists_roundtrip(rows: list[list[float]], ints: list[int]) -> None:
    text = "m = '" + "; ".join(" ".join(repr(x) for x in r) for r in rows) + "'\n"
    text += "i = '" + " ".join(str(i) for i in ints) + "'\n"
    root = parse_text(write(parse_text(text)))
    assert root.get_float_list2d("m") == rows
    assert root.get_int_list("i") == ints


@_SETTINGS
@given(documents, st.data())
def test_format_text_normalizes_any_indentation(root: Section, data: st.DataObject) -> None:
    if any(isinstance(n, Field) and "\n" in n.text for n in root.walk()):
        return  # indentation inside multi-line quoted values is content, not layout
    canonical = write(root)
    pads = st.text(alphabet=" \t", max_size=6)
    mangled = "".join(
        data.draw(pads) + line.lstrip(" ") + "\n" for line in canonical.split("\n")[:-1]
    )
    assert format_text(mangled) == canonical


@_SETTINGS
@given(documents, st.data())
def test_post_snippet_overrides_every_field(root: Section, data: st.DataObject) -> None:
    text = write(root)
    targets = [n for n in root.walk() if isinstance(n, Field) and root.find_field(n.path) is n]
    lines, expected = [], {}
    for f in targets:
        new = str(data.draw(st.integers()))
        lines.append(f"{f.path} := {new}")
        expected[f.path] = new
    snippet = "".join(_as_snippet(line) for line in lines)
    merged = parse_text(text, post=snippet)
    for path, value in expected.items():
        hit = merged.find_field(path)
        assert hit is not None and hit.value == value and hit.override
    assert parse_text(write(merged)) == merged


def _as_snippet(assignment: str) -> str:
    """``A/b/k := v`` as a path-header block (or a top-level field)."""
    path, value = assignment.split(" := ")
    block, _, key = path.rpartition("/")
    return f"[{block}]\n  {key} := {value}\n[]\n" if block else f"{key} := {value}\n"
