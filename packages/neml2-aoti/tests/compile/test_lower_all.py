"""``lower_all`` with a process pool: the largest program lowers in this process, the others in
``jobs - 1`` spawned workers, and every graph computes its program's values."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from torch import nn

from neml2.aoti.compile._lower import GraphJob, export_graph, lower_all


class Small(nn.Module):
    def forward(self, *args: torch.Tensor) -> tuple[torch.Tensor]:  # the pipeline's signature
        (x,) = args
        return (2 * x + 1,)


class Large(nn.Module):
    def forward(self, *args: torch.Tensor) -> tuple[torch.Tensor]:
        (x,) = args
        y = x
        for k in range(1, 13):
            y = y + torch.sin(k * x) / k
        return (y,)


def test_largest_program_lowers_here_and_the_rest_in_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    example = [torch.rand(4, 3, dtype=torch.float64)]
    modules = {"small.pt2": Small(), "large.pt2": Large(), "small2.pt2": Small()}
    jobs = [
        GraphJob(name, export_graph(m, example, dynamic=True)[0]) for name, m in modules.items()
    ]
    saved: list[Any] = []
    save = torch.export.save

    def recorded(program: Any, path: Any, **kwargs: Any) -> None:
        saved.append(program)
        save(program, path, **kwargs)

    monkeypatch.setattr(torch.export, "save", recorded)  # in the parent: the programs sent out
    seen: list[str] = []
    written = lower_all(jobs, tmp_path, n_jobs=2, progress=seen.append)
    large = jobs[1].program
    assert len(saved) == 2 and all(p is not large for p in saved)
    assert sorted(Path(p).name for p in seen) == sorted(modules)
    assert [str(p) for p in written] == seen
    x = torch.rand(37, 3, dtype=torch.float64)
    for name, module in modules.items():
        (got,) = torch._inductor.aoti_load_package(str(tmp_path / name))(x)
        # Inductor's vectorized sin is within a few ulp of libm's, and |sin(k x) / k| <= 1
        torch.testing.assert_close(got, module(x)[0], rtol=0, atol=13 * 8 * 2.2e-16)
