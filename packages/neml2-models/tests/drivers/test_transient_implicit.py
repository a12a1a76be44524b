"""TransientDriver over an ImplicitUpdate (backward Euler of dx/dt = -k x, no predictor):
the unknown x is zero-filled and unrecorded each step, x~1 chains from the input IC, and the
history matches x_k = x_{k-1} / (1 + k dt_k)."""

from __future__ import annotations

import numpy as np
import torch
from backward_euler import BE
from narrow import narrow

from neml2.drivers import TransientDriver
from neml2.factory import load_string

K = 1.5
TIMES = [0.0, 0.1, 0.3, 0.6, 1.0]
X0 = [1.0, 2.0, -0.5]

# the backward-Euler model of ``backward_euler.BE`` (weight -K), Newton tolerances per dtype
HIT = (
    f"""
[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.tensor({TIMES}, dtype=torch.float64))'
  []
  [x0]
    type = Python
    expr = 'Scalar(torch.tensor({X0}, dtype=torch.float64))'
  []
[]"""
    + BE.replace("weights = '-1.5'", f"weights = '{-K}'").replace(
        "linear_solver = 'lu'\n",
        "linear_solver = 'lu'\n    abs_tol = ABS_TOL\n    rel_tol = REL_TOL\n",
    )
    + """[Drivers]
  [driver]
    type = TransientDriver
    model = 'model'
    prescribed_time = 'times'
    ic_Scalar_names = 'x'
    ic_Scalar_values = 'x0'
  []
[]
"""
)


def test_implicit_history(dtype: torch.dtype, device: torch.device) -> None:
    f32 = dtype == torch.float32
    text = HIT.replace("ABS_TOL", "1e-6" if f32 else "1e-12").replace(
        "REL_TOL", "1e-6" if f32 else "1e-10"
    )
    driver = narrow(
        load_string(text, dtype=dtype, device=device).get_driver("driver"), TransientDriver
    )
    driver.run()
    res = driver.result()
    n = len(TIMES)
    keys = {f"input.{k}.t" for k in range(n)} | {"input.0.x"}
    keys |= {f"input.{k}.{v}" for k in range(1, n) for v in ("x~1", "t~1")}
    keys |= {f"output.{k}.x" for k in range(1, n)}
    assert set(res) == keys
    xs = [np.array(X0)]
    for k in range(1, n):
        xs.append(xs[-1] / (1 + K * (TIMES[k] - TIMES[k - 1])))
    tol = 1e-12 if dtype == torch.float64 else 1e-5
    for k in range(1, n):
        for key, want in ((f"output.{k}.x", xs[k]), (f"input.{k}.x~1", xs[k - 1])):
            got = res[key].detach().cpu().double().numpy()
            assert got.shape == (3,)
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
