"""``neml2-inspect --graph``: the three-rates model's optimized graph computes ``t - t~1`` once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from three_rates import THREE_RATES_INPUT

from neml2.cli.inspect import main


def test_inspect_graph_shows_cse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "three_rates.i"
    path.write_text(THREE_RATES_INPUT)
    assert main([str(path), "eq", "--graph"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# ComposedModel 'eq'\ngraph(")
    assert out.count("aten.sub.Tensor(%t, %t~1)") == 1
    assert out.count("aten.div.Tensor") == 3
    assert main([str(path), "eq", "--graph", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["retcode"] == 0 and rec["graph"].count("aten.sub.Tensor(%t, %t~1)") == 1
