r"""Shared inputs of the implicit-update tests: backward Euler of a scalar ODE.

``BE``: :math:`\dot x = w x` with :math:`w = -k = -1.5` (a ``ScalarLinearCombination``
weight), residual :math:`r = x - x_{n} - (t - t_{n})\dot x`, so :math:`x = x_n / (1 + k\,\Delta t)`.
``CUBIC``: :math:`\dot x = -2 x^3`, whose step is the real root of
:math:`2\Delta t\,x^3 + x - x_n = 0` (:func:`cubic_root`, numpy).
"""

from __future__ import annotations

import numpy as np

# x_rate = w x with w = -k (a parameter), r = x - x~1 - (t - t~1) x_rate  =>  x = x~1 / (1 + k dt)
BE = """
[Models]
  [rate]
    type = ScalarLinearCombination
    from = 'x'
    to = 'x_rate'
    weights = '-1.5'
  []
  [integrate]
    type = ScalarBackwardEulerTimeIntegration
    variable = 'x'
  []
  [implicit_rate]
    type = ComposedModel
    models = 'rate integrate'
  []
  [model]
    type = ImplicitUpdate
    equation_system = 'eq'
    solver = 'newton'
  []
[]
[EquationSystems]
  [eq]
    type = NonlinearSystem
    model = 'implicit_rate'
    unknowns = 'x'
  []
[]
[Solvers]
  [newton]
    type = Newton
    linear_solver = 'lu'
  []
  [lu]
    type = DenseLU
  []
[]
"""

# nonlinear: x_rate = w x^3 (x^3 = x * x2 * x3 with copies), a cubic per element
CUBIC = BE.replace(
    """  [rate]
    type = ScalarLinearCombination
    from = 'x'
    to = 'x_rate'
    weights = '-1.5'
  []""",
    """  [x2]
    type = CopyScalar
    from = 'x'
    to = 'x2'
  []
  [x3]
    type = CopyScalar
    from = 'x'
    to = 'x3'
  []
  [rate]
    type = ScalarMultiplication
    from = 'x x2 x3'
    to = 'x_rate'
    scaling = -2.0
  []""",
).replace("models = 'rate integrate'", "models = 'x2 x3 rate integrate'")


def cubic_root(xn: np.ndarray, dt: np.ndarray) -> np.ndarray:
    r"""Real root of :math:`2\,dt\,x^3 + x - x_n = 0` element by element (numpy roots)."""
    xn, dt = np.broadcast_arrays(xn, dt)
    out = np.empty(xn.shape)
    for i, (a, h) in enumerate(zip(xn.ravel(), dt.ravel(), strict=True)):
        r = np.roots([2.0 * h, 0.0, 1.0, -a])
        out.ravel()[i] = r[np.argmin(np.abs(r.imag))].real
    return out
