"""A driver whose prescribed time and strain carry no batch axis (batch shape ``()``).

NEML2 v3 runs such an input as one material point: every recorded variable is ``(N, *base)``.
The Chaboche and Perzyna/Voce examples (implicit updates through ``Normality``) run unbatched
and equal the first point of the same histories run batched, step for step.
"""

from __future__ import annotations

import example_history as run
import numpy as np
import pytest

VISCO = run.EXAMPLES / "viscoplasticity"
TIMES = (
    "Tensors/times/expr:='Scalar(torch.linspace(0, ${tend}, ${nsteps} + 1, dtype=torch.float64))'"
)
#: the examples' first point, prescribed without a batch axis: (N,) times, (N, 6) loads
UNBATCHED = {
    "chaboche.i": [
        TIMES,
        "Tensors/strains/expr:='SR2(torch.nn.functional.pad("
        "(0.005 * torch.sin(math.pi * times.data))[..., None], (0, 5)))'",
    ],
    "creep_stress_control.i": [
        TIMES,
        "Tensors/stresses/expr:='SR2(torch.nn.functional.pad((200.0 * ramp.data)[..., None], (0, 5)))'",
    ],
}
COVERED_TYPES = {"Normality"}


@pytest.mark.parametrize("example", sorted(UNBATCHED))
def test_unbatched_history_is_the_first_batched_point(example: str) -> None:
    path = VISCO / example
    batched = run.history(path)
    unbatched = run.history(path, UNBATCHED[example])
    assert set(unbatched) == set(batched)
    for name, h in unbatched.items():
        b = batched[name]
        first = b[:, 0] if b.ndim == h.ndim + 1 else b
        assert h.shape == first.shape, f"{name}: {h.shape} vs {first.shape}"
        np.testing.assert_allclose(h, first, rtol=1e-9, atol=1e-12, err_msg=name)
