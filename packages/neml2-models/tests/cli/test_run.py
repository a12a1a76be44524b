"""neml2-run: result files key by key (``docs/guide/drivers.md``, "Results"), --csv values, --plot,
regression and verification drivers, failures (exit 1, one 'Error: ...' line naming the fault)."""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from driver_scenario import SR2_COLS, make, write_case

from neml2.cli.run import main


def _case(tmp_path: Path, batch: int = 1, nsteps: int = 5) -> tuple[str, Any]:
    sc = make(nsteps=nsteps, batch=batch)
    return write_case(tmp_path, sc), sc


def _expected_shapes(sc: Any, batch: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
    n = sc.nsteps
    out: dict[str, tuple[int, ...]] = {}
    for k in range(n):
        out[f"input.{k}.t"] = ()
        out[f"input.{k}.x_rate"] = ()
        out[f"input.{k}.strain"] = (*batch, 6)
        if k >= 1:
            out[f"input.{k}.t~1"] = ()
            out[f"input.{k}.x~1"] = ()
            out[f"output.{k}.stress"] = (*batch, 6)
            out[f"output.{k}.x"] = ()
    out["output.0.x"] = ()
    return out


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_result_file_keys_and_shapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], dtype: str
) -> None:
    path, sc = _case(tmp_path, batch=2)
    out = tmp_path / "res.pt"
    default = torch.get_default_dtype()
    rc = main([path, "driver", "--dtype", dtype, f"Drivers/driver/save_as:={out}"])
    assert rc == 0
    assert capsys.readouterr() == ("", "")
    assert torch.get_default_dtype() == default
    res = torch.load(out, weights_only=True)
    shapes = _expected_shapes(sc, (2,))
    assert sorted(res) == sorted(shapes)
    for key, shape in shapes.items():
        assert tuple(res[key].shape) == shape, key
        assert res[key].dtype == getattr(torch, dtype), key
    tol = 1e-12 if dtype == "float64" else 1e-5
    stress = sc.stress()
    for k in range(1, sc.nsteps):
        np.testing.assert_allclose(
            res[f"output.{k}.stress"].detach().double().numpy(), stress[k], rtol=tol, atol=tol
        )


def test_csv_values(tmp_path: Path) -> None:
    path, sc = _case(tmp_path, batch=2)
    out = tmp_path / "hist.csv"
    assert main([path, "driver", "--csv", str(out), "--vars", "x,stress"]) == 0
    rows = list(csv.DictReader(out.open()))
    header = list(rows[0])
    assert header == ["step", "batch", "x", *[f"stress{c}" for c in SR2_COLS]]
    assert len(rows) == sc.nsteps * 2
    stress, xs = sc.stress(), sc.x()
    for r in rows:
        k, b = int(r["step"]), int(r["batch"])
        assert float(r["x"]) == pytest.approx(xs[k], rel=1e-14, abs=1e-15)
        got = [r[f"stress{c}"] for c in SR2_COLS]
        if k == 0:
            assert got == [""] * 6
        else:
            np.testing.assert_allclose([float(g) for g in got], stress[k, b], rtol=1e-13)


def test_csv_default_columns(tmp_path: Path) -> None:
    path, sc = _case(tmp_path, batch=1)
    out = tmp_path / "hist.csv"
    assert main([path, "driver", "--csv", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert list(rows[0]) == [
        "step", "batch", "t", "x_rate", *[f"strain{c}" for c in SR2_COLS], "x~1", "t~1", "x",
        *[f"stress{c}" for c in SR2_COLS],
    ]  # fmt: skip
    assert [float(r["t"]) for r in rows] == pytest.approx(sc.times.tolist(), rel=1e-15)
    assert rows[0]["t~1"] == ""


def test_plot(tmp_path: Path) -> None:
    path, _ = _case(tmp_path, batch=2)
    png = tmp_path / "a.png"
    assert main([path, "driver", "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    png2 = tmp_path / "b.png"
    assert main([path, "driver", "--plot", str(png2), "--plot-x", "t", "--plot-y", "x,x~1"]) == 0
    assert png2.stat().st_size > 1000


def test_regression_and_verification_through_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = _case(tmp_path)
    assert main([path, "driver", f"Drivers/driver/save_as:={tmp_path / 'gold.pt'}"]) == 0
    assert main([path, "regression"]) == 0
    assert main([path, "verify"]) == 0
    assert capsys.readouterr().err == ""
    assert main([path, "regression", "Models/elastic/coefficients:='1.001e5 0.3'"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: TransientRegression: 4 of ")
    assert "  output.1.stress: max_abs=" in err
    assert "  output.1.x:" not in err


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["nodriver"], r"^Error: No \[Drivers/nodriver\] found in .*model.i$"),
        (["driver", "Drivers/driver/model:=zz"], r"^Error: .*No \[Models/zz\] found"),
        (
            ["driver", "Drivers/driver/prescribed_SR2_names:=strian"],
            r"^Error: .*\[Drivers/driver\].*'strian' is not an input of model 'model'",
        ),
        (
            ["driver", "Drivers/driver/ic_Scalar_names:=y"],
            r"^Error: .*'ic_Scalar_names': 'y' is neither an input nor an output",
        ),
        (["driver", "--bogus"], r"^Error: .*bogus"),
        (
            ["driver", "Drivers/driver/type:=ModelUnitTest"],
            r"^Error: .*Type 'ModelUnitTest' is not registered .*\[Drivers/driver\]",
        ),
        (["driver", "--device", "gpu"], r"^Error: --device 'gpu'"),
        (
            ["driver", "--csv", "o.csv", "--vars", "stres"],
            r"^Error: --vars: 'stres' was not "
            r"recorded",
        ),
        (
            ["driver", "--plot", "o.png", "--plot-y", "stress_zx"],
            r"^Error: --plot: no column "
            r"'stress_zx'",
        ),
        (["driver", "--vars", "x"], r"^Error: --vars/--plot-x/--plot-y need --csv or --plot"),
    ],
)
def test_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], match: str
) -> None:
    path, _ = _case(tmp_path, nsteps=3)
    import re

    assert main([path, *args]) == 1
    out = capsys.readouterr()
    assert out.out == ""
    assert re.search(match, out.err.strip()), out.err


def test_force_length_mismatch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, sc = _case(tmp_path, nsteps=4)
    text = Path(path).read_text().replace(str(sc.rate.tolist()), str(sc.rate[:2].tolist()))
    Path(path).write_text(text)
    assert main([path, "driver"]) == 1
    assert "the force for 'x_rate' has 2 step(s)" in capsys.readouterr().err


def test_console_script(tmp_path: Path) -> None:
    exe = shutil.which("neml2-run", path=str(Path(sys.executable).parent))
    assert exe is not None, "neml2-run is not installed (pip install -e packages/neml2-models)"
    path, _ = _case(tmp_path, nsteps=3)
    ok = subprocess.run([exe, path, "driver"], capture_output=True, text=True, check=False)
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, "", "")
    bad = subprocess.run([exe, path, "nodriver"], capture_output=True, text=True, check=False)
    assert bad.returncode == 1
    assert bad.stderr.startswith("Error: No [Drivers/nodriver] found in")


USER_MODULE = '''
from neml2.factory import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import Scalar


@register_neml2_object("H9LoadedScale")
class H9LoadedScale(Model):
    """y = a x (test-only type registered through --load)."""

    hit = HitSchema(
        input("from", Scalar, "x", attr="from_var"),
        output("to", Scalar, "y"),
        parameter("a", Scalar, "a"),
    )

    def forward(self, x, *promoted, v=None):
        return self._get_param("a", promoted) * x
'''


def test_load_user_module(tmp_path: Path) -> None:
    (tmp_path / "h9_user.py").write_text(USER_MODULE)
    (tmp_path / "user.i").write_text(
        """
[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64))'
  []
  [xs]
    type = Python
    expr = 'Scalar(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64))'
  []
[]
[Models]
  [model]
    type = H9LoadedScale
    from = 'x'
    to = 'y'
    a = 2.5
  []
[]
[Drivers]
  [driver]
    type = TransientDriver
    model = 'model'
    prescribed_time = 'times'
    prescribed_Scalar_names = 'x'
    prescribed_Scalar_values = 'xs'
  []
[]
"""
    )
    out = tmp_path / "hist.csv"
    args = [str(tmp_path / "user.i"), "driver", "--csv", str(out)]
    assert main([*args, "--load", str(tmp_path / "h9_user.py")]) == 0
    rows = list(csv.DictReader(out.open()))
    assert [r["y"] for r in rows] == ["", repr(2.5 * 2.0), repr(2.5 * 3.0)]
    assert main(["--load", str(tmp_path / "missing.py"), *args]) == 1
