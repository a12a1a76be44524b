"""``--plot`` without matplotlib: a one-line error telling how to install it, not a traceback."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from neml2.cli._history import History, plot_history


def test_missing_matplotlib_is_explained(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib...` fail
    history = History(columns=["step", "x"], rows=[[0.0, 1.0]])
    with pytest.raises(RuntimeError, match=r"--plot needs matplotlib.*neml2-models\[plot\]"):
        plot_history(history, "step", ["x"], tmp_path / "p.png")
