"""Elasticity (-p model.E, -d stress:strain, -d stress:model.E): every graph against py-eager."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from typing import Any

import pytest
import torch

import neml2
from neml2.tensors import SR2


def _eager(scenario_file: Callable[[str], Any], dtype: torch.dtype, E: torch.Tensor) -> Any:
    m = neml2.load_model(scenario_file("elasticity"), "model", dtype=dtype)
    m.set_parameter("E", E)  # one Young's modulus per batch entry
    return m


@pytest.mark.parametrize("batch", [1, 5])
def test_value_jvp_pjac(
    graph: Any, scenario_file: Any, dtype: torch.dtype, rtol: float, close: Any, batch: int
) -> None:
    g = torch.Generator().manual_seed(batch)
    x = (torch.rand(batch, 6, generator=g, dtype=torch.float64) - 0.5).to(dtype)
    E = (1e3 * (1 + torch.rand(batch, generator=g, dtype=torch.float64))).to(dtype)
    m = _eager(scenario_file, dtype, E)
    with torch.no_grad():
        want = m(SR2(x)).data
    (stress,) = graph("elasticity", "model.pt2")(x, E)
    close(stress, want, rtol, "value graph: stress")
    stress2, J = graph("elasticity", "model_jvp.pt2")(x, E)
    close(stress2, want, rtol, "jvp graph: stress")
    with torch.no_grad():
        _, Jw = m.jacobian({"strain": SR2(x)})
    close(J, Jw["stress"]["strain"].data.expand(batch, 6, 6), rtol, "jvp graph: dstress/dstrain")
    (dE,) = graph("elasticity", "model_pjac.pt2")(x, E)
    # stress is linear in E: d stress / d E = stress / E (closed form), and autograd agrees
    close(dE, want / E[:, None], rtol, "pjac graph: dstress/dE (closed form)")
    Er = E.clone().requires_grad_(True)
    m.set_parameter("E", Er.detach())
    p = dict(m.named_parameters())["E"]
    out = m(SR2(x)).data
    cols = [torch.autograd.grad(out[:, k].sum(), p, retain_graph=True)[0] for k in range(6)]
    close(dE, torch.stack(cols, -1), rtol, "pjac graph: dstress/dE (autograd)")


def test_graphs_are_genuinely_of_the_leaf_dtype(
    graph: Any, artifact: Any, dtype: torch.dtype, dtype_name: str
) -> None:
    x = torch.rand(3, 6, dtype=dtype)
    E = torch.full((3,), 1e3, dtype=dtype)
    (stress,) = graph("elasticity", "model.pt2")(x, E)
    assert stress.dtype == dtype
    # the generated wrapper allocates and checks tensors of the leaf dtype only
    other = "float32" if dtype_name == "float64" else "float64"
    for f in sorted((artifact("elasticity") / "cpu" / dtype_name).glob("*.pt2")):
        with zipfile.ZipFile(f) as z:
            (cpp,) = [n for n in z.namelist() if n.endswith("wrapper.cpp")]
            text = z.read(cpp).decode()
        assert f"dtype_{dtype_name}" in text and f"dtype_{other}" not in text, f.name
