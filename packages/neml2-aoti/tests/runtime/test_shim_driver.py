"""``neml2-run stub.i driver``: the drivers run unchanged on a compiled model (py-aoti)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from neml2.cli.run import main as neml2_run

# 10 steps of strain ramps (3 batch entries) over t = 0..10: the Chaboche model yields and
# hardens, so every lagged state variable is chained through the driver.
DRIVER = """
[Tensors]
  [times]
    type = Python
    expr = '''
      Scalar(torch.linspace(0.0, 10.0, 11, dtype=torch.float64).unsqueeze(-1).expand(11, 3))
    '''
  []
  [strains]
    type = Python
    expr = '''
      SR2(torch.linspace(0.0, 1.0, 11, dtype=torch.float64).reshape(11, 1, 1)
          * torch.tensor([[0.02, -0.01, -0.01, 0.0, 0.0, 0.0],
                          [0.01, 0.0, 0.0, 0.004, 0.0, 0.0],
                          [-0.02, 0.01, 0.01, 0.0, 0.002, 0.0]], dtype=torch.float64))
    '''
  []
[]
[Drivers]
  [driver]
    type = TransientDriver
    model = 'model'
    prescribed_time = 'times'
    prescribed_SR2_names = 'strain'
    prescribed_SR2_values = 'strains'
  []
[]
"""


def _driver_inputs(
    stub: Callable[[str], Path], scenario_file: Callable[[str], Path], tmp_path: Path
) -> tuple[Path, Path]:
    """The Chaboche ``DRIVER`` on the compiled stub (artifact copied next to it) and on the
    eager input: ``(aoti input, eager input)``."""
    compiled = stub("chaboche")
    artifact_path = next(
        line.partition("=")[2].strip().strip("'\"")
        for line in compiled.read_text().splitlines()
        if line.partition("=")[0].strip() == "artifact_path"
    )
    shutil.copytree(compiled.parent / artifact_path, tmp_path / artifact_path)
    aoti_input = tmp_path / "driver_aoti.i"
    aoti_input.write_text(compiled.read_text() + DRIVER)
    eager_input = tmp_path / "driver_eager.i"
    eager_input.write_text(scenario_file("chaboche").read_text() + DRIVER)
    return aoti_input, eager_input


def _run(
    input_file: Path, out: Path, dtype: torch.dtype, capsys: pytest.CaptureFixture[str]
) -> dict[str, torch.Tensor]:
    args = [str(input_file), "driver", "--dtype", str(dtype).removeprefix("torch.")]
    code = neml2_run([*args, f"Drivers/driver/save_as:={out}"])
    assert code == 0, capsys.readouterr().err
    result: dict[str, torch.Tensor] = torch.load(out)
    return result


def test_transient_driver_on_stub_matches_eager(
    stub: Callable[[str], Path],
    scenario_file: Callable[[str], Path],
    tmp_path: Path,
    dtype: torch.dtype,
    device: torch.device,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if (device.type, dtype) != ("cpu", torch.float64):
        pytest.skip(
            "runs at the scenario's own Newton tolerances, which float32 cannot meet; the stub "
            "takes the same path on every device and dtype"
        )
    aoti_input, eager_input = _driver_inputs(stub, scenario_file, tmp_path)
    got = _run(aoti_input, tmp_path / "aoti.pt", dtype, capsys)
    ref = _run(eager_input, tmp_path / "eager.pt", dtype, capsys)
    assert got.keys() == ref.keys()
    assert "output.10.stress" in got
    for key in ref:
        torch.testing.assert_close(got[key], ref[key], rtol=1e-10, atol=1e-9, msg=key)
    assert float(got["output.10.equivalent_plastic_strain"].abs().max()) > 0.0


def test_convergence_error_names_model_and_step(
    stub: Callable[[str], Path],
    scenario_file: Callable[[str], Path],
    tmp_path: Path,
    dtype: torch.dtype,
    device: torch.device,
) -> None:
    """A failed solve inside a driver says which model failed and at which step and time, on
    py-eager and on the compiled route (the same recoverable ConvergenceError)."""
    import neml2
    from neml2.aoti import ConvergenceError

    aoti_input, eager_input = _driver_inputs(stub, scenario_file, tmp_path)
    aoti = neml2.load_input(aoti_input, dtype=dtype, device=device)
    aoti.get_model("model").runtime.set_solver_config(miters=1)
    eager = neml2.load_input(
        eager_input, additional_args=["Solvers/newton/max_its:=1"], dtype=dtype, device=device
    )
    for factory, model in ((aoti, "compiled model 'model'"), (eager, "ImplicitUpdate 'model'")):
        with pytest.raises(ConvergenceError) as e:
            factory.get_driver("driver").run()
        msg = str(e.value)
        assert msg.startswith("TransientDriver 'driver' step 1 of 10 (t = 1):"), msg
        assert model in msg, msg
