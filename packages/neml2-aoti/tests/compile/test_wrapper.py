"""Raw-pointer views into a graph's outputs in the AOTI wrapper (compile/_wrapper.py)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import torch
from torch import nn

from neml2.aoti.compile._lower import _lower, export_graph, scalarized_configs
from neml2.aoti.compile._wrapper import raw_output_views_active

N_COMPONENTS = 40


class Stacked(nn.Module):
    """A residual and a (B, 40) block of per-component expressions, stacked component-major as a
    scalarized Jacobian is (Inductor fills it as 40 slices of one buffer)."""

    def forward(self, *args: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        (x,) = args  # graph adapters take their arguments as *args
        a, b = x[:, 0], x[:, 1]
        t = torch.exp(a) * b + torch.sqrt(a * a + 1.0)
        cols = [t * (k + 1) + a if k % 3 else t - b * k for k in range(N_COMPONENTS)]
        return t + b, torch.stack(cols, 0).movedim(-1, 0)


def _wrapper_source(package: Path) -> str:
    with zipfile.ZipFile(package) as z:
        (name,) = [n for n in z.namelist() if n.endswith("wrapper.cpp")]
        return z.read(name).decode()


def test_output_slices_are_raw_pointers_and_values_are_unchanged(tmp_path: Path) -> None:
    x = torch.rand(6, 2, dtype=torch.float64)
    ep, _ = export_graph(Stacked(), [x], dynamic=True)
    path = _lower(ep, str(tmp_path / "stacked.pt2"), scalarized_configs())
    assert not raw_output_views_active()
    src = _wrapper_source(Path(path))
    assert src.count("// raw view") == N_COMPONENTS
    assert "// alias" not in src  # Inductor's tensor-view declaration of a slice
    model = torch._inductor.aoti_load_package(path)
    for batch in (2, 37, 1000):  # 37: a vector loop tail
        xb = torch.rand(batch, 2, dtype=torch.float64)
        expected = Stacked()(xb)
        got = model(xb)
        # the same expressions with Inductor's vectorized exp/sqrt: t differs by a few ulp, and
        # the columns carry that difference times factors up to N_COMPONENTS. Relative to the
        # column it is unbounded where t - b*k cancels, so the bound is absolute, in units of
        # |t| <= |t + b| (x >= 0)
        eps = torch.finfo(torch.float64).eps
        atol = 8 * eps * N_COMPONENTS * float(expected[0].abs().max())
        for e, g in zip(expected, got, strict=True):
            torch.testing.assert_close(g, e, rtol=8 * eps, atol=atol)
