"""Bad input: every error names the file, the block and the option; nothing half-built is cached."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

import neml2
from neml2.factory import InputFile, load_input

GOOD = """
[good]
  type = ScalarLinearCombination
  from = 'a'
  to = 'b'
[]
"""


def _file(tmp_path: Path, models: str, extra: str = "") -> InputFile:
    path = tmp_path / "bad.i"
    path.write_text(f"[Models]\n{GOOD}{models}[]\n{extra}")
    return load_input(path)


def _check(f: InputFile, name: str, exc: type[BaseException], *needles: str) -> None:
    """The error names everything, is repeatable (not cached), and other blocks still build."""
    with pytest.raises(exc) as first:
        f.get_model(name)
    msg = str(first.value)
    for n in needles:
        assert n in msg, f"{n!r} not in {msg!r}"
    assert "bad.i" in msg
    assert f.get_model("good") is f.get_model("good")
    with pytest.raises(exc) as again:
        f.get_model(name)
    assert str(again.value) == msg


def test_unknown_type(tmp_path: Path) -> None:
    f = _file(tmp_path, "[m]\n type = ScalarLinearCombinaton\n[]\n")
    _check(
        f,
        "m",
        KeyError,
        "Type 'ScalarLinearCombinaton' is not registered",
        "(section='Models', name='m')",
        "ScalarLinearCombination",
        "[Models/m]",
    )


def test_unknown_option(tmp_path: Path) -> None:
    f = _file(
        tmp_path, "[m]\n type = ScalarLinearCombination\n from = 'a'\n to = 'b'\n wieghts = 2\n[]\n"
    )
    _check(
        f,
        "m",
        ValueError,
        "bad.i:",
        "[Models/m] (type='ScalarLinearCombination')",
        "unknown option(s) ['wieghts']",
        "Accepted: ['additional_outputs'"[:0] + "Accepted: [",
        "'weights'",
        "did you mean 'weights'",
    )


def test_missing_required_option(tmp_path: Path) -> None:
    f = _file(tmp_path, "[m]\n type = ScalarConstantParameter\n[]\n")
    _check(
        f,
        "m",
        ValueError,
        "[Models/m] (type='ScalarConstantParameter')",
        "missing required option 'value'",
    )


def test_wrong_value_type(tmp_path: Path) -> None:
    f = _file(tmp_path, "[m]\n type = SR2ConstantParameter\n value = '1 2 3'\n[]\n")
    _check(
        f,
        "m",
        ValueError,
        "[Models/m] (type='SR2ConstantParameter')",
        "'value'",
        "'1 2 3'",
        "not a valid SR2",
    )


def test_unresolvable_parameter(tmp_path: Path) -> None:
    f = _file(
        tmp_path,
        "[m]\n type = ScalarVariableRate\n variable = a\n[]\n"
        "[n]\n type = SR2LinearCombination\n from = 'a'\n to = 'b'\n offset = nosuchtensor\n[]\n",
    )
    # offset allows promotion → becomes an input; a buffer-like use is an error only without it
    assert "nosuchtensor" in f.get_model("n").input_spec


def test_missing_model_reference(tmp_path: Path) -> None:
    f = _file(tmp_path, "[m]\n type = ComposedModel\n models = 'good nope'\n[]\n")
    _check(
        f,
        "m",
        KeyError,
        "[Models/m] (type='ComposedModel')",
        "option 'models'",
        "No [Models/nope] found in",
    )


def test_missing_block() -> None:
    f = neml2.load_string("[Models]\n[]\n")
    with pytest.raises(KeyError, match=r"No \[Models/zz\] found in <string>"):
        f.get_model("zz")


def test_repeated_block_is_ignored_with_a_warning(tmp_path: Path) -> None:
    # A second [Models/good] (in a repeated [Models] section): the first wins, as in NEML2 v3,
    # and the warning names both places and the fields that have no effect.
    f = _file(tmp_path, "", "[Models]\n[good]\n weights = 3\n[]\n[]\n")
    with pytest.warns(neml2.factory.InputWarning) as rec:
        model = f.get_model("good")
    assert len(rec) == 1
    msg = str(rec[0].message)
    assert "bad.i:10: [Models/good] repeats the block at" in msg and "bad.i:3" in msg
    assert "weights" in msg
    assert float(dict(model.named_parameters())["weight_0"].detach()) == 1.0  # the default, not 3
    with warnings.catch_warnings():  # cached: built and warned once
        warnings.simplefilter("error")
        assert f.get_model("good") is model


def test_keyword_block_name(tmp_path: Path) -> None:
    f = _file(tmp_path, "[class]\n type = ScalarVariableRate\n variable = a\n[]\n")
    _check(f, "class", ValueError, "[Models/class]", "Python keyword")


def test_block_cycle(tmp_path: Path) -> None:
    f = _file(
        tmp_path,
        "[p]\n type = ScalarConstantParameter\n value = 'q'\n[]\n"
        "[q]\n type = ScalarConstantParameter\n value = 'p'\n[]\n",
    )
    _check(
        f,
        "p",
        ValueError,
        "circular reference between blocks",
        "[Models/p] -> [Models/q] -> [Models/p]",
    )


def test_duplicate_provider(tmp_path: Path) -> None:
    f = _file(
        tmp_path,
        "[q]\n type = ScalarLinearCombination\n from = 'c'\n to = 'b'\n[]\n"
        "[m]\n type = ComposedModel\n models = 'good q'\n[]\n",
    )
    _check(
        f,
        "m",
        ValueError,
        "[Models/m] (type='ComposedModel')",
        "Variable 'b' is provided by more than one model at the same default level",
    )


def test_bad_bool(tmp_path: Path) -> None:
    f = _file(tmp_path, "", "[Settings]\n dynamic_batch = maybe\n[]\n")
    with pytest.raises(ValueError, match=r"bad.i:\d+: \[Settings\] option 'dynamic_batch'"):
        _ = f.settings


CSV_T = "[Tensors]\n[T]\n type = CSVSR2\n csv_file = '{file}'\n {sel}\n[]\n[]\n"


def _csv_file(tmp_path: Path, file: str, sel: str) -> InputFile:
    models = "[m]\n type = SR2ConstantParameter\n value = 'T'\n[]\n"
    return _file(tmp_path, models, CSV_T.format(file=file, sel=sel))


def test_csv_missing_file(tmp_path: Path) -> None:
    f = _csv_file(tmp_path, "nope.csv", "variable = 'eps'")
    _check(
        f,
        "m",
        ValueError,
        "[Tensors/T] (type='CSVSR2') option 'csv_file'",
        "file not found",
        "nope.csv",
    )


def test_csv_wrong_columns(tmp_path: Path) -> None:
    (tmp_path / "d.csv").write_text("eps_xx,eps_yy\n1,2\n")
    f = _csv_file(tmp_path, "d.csv", "variable = 'eps'")
    _check(
        f, "m", ValueError, "[Tensors/T] (type='CSVSR2') option 'variable'", "'eps_zz'", "not found"
    )


def test_csv_reads(tmp_path: Path) -> None:
    cols = ["eps_xx", "eps_yy", "eps_zz", "eps_yz", "eps_xz", "eps_xy"]
    rows = [[float(i * 6 + j) for j in range(6)] for i in range(3)]
    (tmp_path / "d.csv").write_text(
        ",".join(cols) + "\n" + "\n".join(",".join(map(str, r)) for r in rows)
    )
    f = _csv_file(tmp_path, "d.csv", "variable = 'eps'")
    t: Any = f.get_tensor("T")
    assert type(t).__name__ == "SR2" and t.data.tolist() == rows


def test_python_tensor_error(tmp_path: Path) -> None:
    f = _file(
        tmp_path,
        "[m]\n type = ScalarConstantParameter\n value = 'T'\n[]\n",
        "[Tensors]\n[T]\n type = Python\n expr = '1 / zz_undefined'\n[]\n[]\n",
    )
    _check(f, "m", ValueError, "[Tensors/T] expr raised NameError")


def _register_option_model() -> None:
    from neml2.factory import register_neml2_object
    from neml2.models.model import Model
    from neml2.schema import HitSchema, option

    @register_neml2_object("TestOnlyOptions")
    class TestOnlyOptions(Model):
        hit = HitSchema(
            option("count", int, "An integer"),
            option("flag", bool, "A boolean", default=False),
        )


@pytest.mark.parametrize(
    ("opts", "needle"),
    [("count = 1e3", "expected an integer"), ("count = 2\n flag = True", "'flag'")],
)
def test_wrong_option_type(tmp_path: Path, opts: str, needle: str) -> None:
    _register_option_model()
    f = _file(tmp_path, f"[m]\n type = TestOnlyOptions\n {opts}\n[]\n")
    _check(f, "m", ValueError, "[Models/m]", needle)


def test_missing_tensors_reference(tmp_path: Path) -> None:
    from neml2.factory import register_neml2_object
    from neml2.models.model import Model
    from neml2.schema import HitSchema, parameter
    from neml2.tensors import Scalar

    @register_neml2_object("TestOnlyParam")
    class TestOnlyParam(Model):
        hit = HitSchema(parameter("c", Scalar, "A constant (no promotion)"))

    f = _file(tmp_path, "[m]\n type = TestOnlyParam\n c = missing_tensor\n[]\n")
    _check(
        f,
        "m",
        ValueError,
        "[Models/m] (type='TestOnlyParam')",
        "option 'c'",
        "cannot resolve spec 'missing_tensor' as a literal or [Tensors] entry",
    )


@pytest.mark.parametrize(
    ("extra", "getter", "name", "option"),
    [
        ("[EquationSystems]\n[eq]\n type = NonlinearSystem\n[]\n[]\n", "get_equation_system",
         "eq", "model"),
        ("[EquationSystems]\n[eq]\n type = NonlinearSystem\n model = 'good'\n[]\n[]\n",
         "get_equation_system", "eq", "unknowns"),
        ("[Drivers]\n[d]\n type = TransientDriver\n model = 'good'\n[]\n[]\n", "get_driver", "d",
         "prescribed_time"),
        ("[Drivers]\n[d]\n type = TransientDriver\n prescribed_time = 1\n[]\n[]\n", "get_driver",
         "d", "model"),
    ],
)  # fmt: skip
def test_missing_required_option_of_other_sections(
    tmp_path: Path, extra: str, getter: str, name: str, option: str
) -> None:
    """Every section names a missing required option (never a constructor's 'missing 1
    required positional argument' or a bare KeyError)."""
    f = _file(tmp_path, "", extra)
    with pytest.raises(ValueError) as info:
        getattr(f, getter)(name)
    msg = str(info.value)
    assert "bad.i:" in msg and f"/{name}] (type=" in msg
    assert f"missing required option '{option}'" in msg, msg
    assert "positional argument" not in msg


def test_unregistered_type_of_a_referenced_block(tmp_path: Path) -> None:
    """A child with an unknown type is the unknown-type error with suggestions (located at the
    child), not a missing-block error of the composition that refers to it."""
    f = _file(
        tmp_path,
        "[m]\n type = ScalarLinearCombinaton\n[]\n[c]\n type = ComposedModel\n models = 'm'\n[]\n",
    )
    with pytest.raises(neml2.factory.NotRegisteredError) as info:
        f.get_model("c")
    assert not isinstance(info.value, neml2.factory.MissingBlockError)
    msg = str(info.value)
    assert "bad.i:8: Type 'ScalarLinearCombinaton' is not registered" in msg  # [m]'s line
    assert "Did you mean: ScalarLinearCombination" in msg
