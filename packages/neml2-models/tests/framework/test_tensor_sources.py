"""[Tensors]: Python expressions and CSV<T> columns; [Settings] parsing."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import neml2
from neml2.settings import BatchSpec, parse_batch_shape

COVERED_TYPES = {"Python", "CSVScalar", "CSVVec", "CSVSR2", "CSVWR2"}


def test_python_expression_and_block_and_reference() -> None:
    f = neml2.load_string(
        "[Tensors]\n"
        "[a]\n type = Python\n expr = 'Scalar(torch.tensor([1.0, 2.0], dtype=torch.float64))'\n[]\n"
        "[b]\n type = Python\n expr = '''\n    x = a * 2.0\n    result = x + math.pi'''\n[]\n"
        "[c]\n type = Python\n expr = 'np.float64(3.0) * torch.ones(2, dtype=torch.float64)'\n[]\n"
        "[]\n"
    )
    b = f.get_tensor("b")
    torch.testing.assert_close(b.data, torch.tensor([2.0, 4.0], dtype=torch.float64) + torch.pi)
    assert f.get_tensor("a") is f.get_tensor("a")
    assert f.has_tensor("c") and not f.has_tensor("zz")
    torch.testing.assert_close(f.get_tensor("c"), torch.full((2,), 3.0, dtype=torch.float64))


def test_python_cycle_is_reported() -> None:
    f = neml2.load_string(
        "[Tensors]\n[a]\n type = Python\n expr = 'b + 1'\n[]\n[b]\n type = Python\n expr = 'a + 1'\n[]\n[]\n"
    )
    with pytest.raises(
        ValueError,
        match=r"circular reference between blocks: \[Tensors/a\] -> "
        r"\[Tensors/b\] -> \[Tensors/a\]",
    ):
        f.get_tensor("a")


def test_block_without_result() -> None:
    f = neml2.load_string("[Tensors]\n[a]\n type = Python\n expr = '''x = 1\ny = 2'''\n[]\n[]\n")
    with pytest.raises(ValueError, match=r"\[Tensors/a\] expr raised NameError: .*'result'"):
        f.get_tensor("a")


@pytest.mark.parametrize(
    ("tname", "cols"),
    [
        ("CSVScalar", ["T"]),
        ("CSVVec", ["v_x", "v_y", "v_z"]),
        ("CSVWR2", ["w_zy", "w_xz", "w_yx"]),
        ("CSVSR2", ["s_xx", "s_yy", "s_zz", "s_yz", "s_xz", "s_xy"]),
    ],
)
def test_csv_types(tmp_path: Path, tname: str, cols: list[str]) -> None:
    rows = [[1.5 * i + j for j in range(len(cols))] for i in range(4)]
    header = ["time", *cols]
    body = "\n".join(",".join(str(x) for x in [0.1 * i, *r]) for i, r in enumerate(rows))
    (tmp_path / "data.csv").write_text(",".join(header) + "\n" + body + "\n")
    var = cols[0].split("_")[0]
    text = (
        f"[Tensors]\n[by_var]\n type = {tname}\n csv_file = data.csv\n variable = {var}\n[]\n"
        f"[by_cols]\n type = {tname}\n csv_file = data.csv\n column_names = '{' '.join(cols)}'\n[]\n[]\n"
    )
    (tmp_path / "in.i").write_text(text)
    f = neml2.load_input(tmp_path / "in.i")
    for block in ("by_var", "by_cols"):
        t = f.get_tensor(block)
        assert type(t).__name__ == tname[3:]
        want = torch.tensor(rows, dtype=torch.float64)
        torch.testing.assert_close(t.data.reshape(4, -1), want)


def test_csv_needs_exactly_one_selector(tmp_path: Path) -> None:
    (tmp_path / "in.i").write_text("[Tensors]\n[t]\n type = CSVScalar\n csv_file = x.csv\n[]\n[]\n")
    with pytest.raises(
        ValueError, match=r"in.i:\d+: \[Tensors/t\] \(type='CSVScalar'\): give exactly one"
    ):
        neml2.load_input(tmp_path / "in.i").get_tensor("t")


def test_settings() -> None:
    assert parse_batch_shape("(2,)") == BatchSpec((2,), None)
    assert parse_batch_shape("(2; 12)") == BatchSpec((2,), (12,))
    assert parse_batch_shape("(; 100, 5)") == BatchSpec((), (100, 5))
    assert parse_batch_shape("(2; )") == BatchSpec((2,), ())
    with pytest.raises(ValueError, match="invalid dimension"):
        parse_batch_shape("(2:label,)")
    f = neml2.load_string(
        "[Settings]\n dynamic_batch = off\n[example_batch_shape]\n x = '(2; 12)'\n[]\n[]\n"
    )
    s = f.settings
    assert not s.dynamic_batch
    assert s.sub_batch_shape("x") == (12,) and s.sub_batch_shape("x~1") == (12,)
    assert s.sub_batch_shape("y") is None
    bad = neml2.load_string(
        "[Settings]\n[example_batch_shape]\n x = '(2; 12)'\n x~1 = '(2; 3)'\n[]\n[]\n"
    )
    with pytest.raises(
        ValueError, match="lags of 'x' are declared with different sub-batch shapes"
    ):
        _ = bad.settings
