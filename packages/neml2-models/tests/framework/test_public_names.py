"""Public parameter names (``neml2.models.public_names``): the rule every non-Python route uses."""

from __future__ import annotations

from pathlib import Path

import neml2
from neml2.models.public_names import PublicNames

ROOT = Path(__file__).resolve().parents[4]


def test_a_bare_leaf_is_prefixed_with_its_block_name() -> None:
    m = neml2.load_model(ROOT / "scenarios/elasticity.i", "model")
    names = PublicNames.of(m, "model")
    assert names.prefix == "model."
    assert [names.public(n) for n, _ in m.named_parameters()] == ["model.E", "model.nu"]
    assert names.local("model.E") == "E"
    # the leaf's own name without the block prefix is not a public name
    assert names.local("E") is None
    assert names.local("model.nope") is None


def test_a_composition_keeps_its_qualified_names_and_resolves_aliases() -> None:
    m = neml2.load_model(ROOT / "scenarios/chaboche.i", "model")
    names = PublicNames.of(m, "model")
    assert names.prefix == ""
    assert names.public("implicit_rate.isoharden.R") == "implicit_rate.isoharden.R"
    # the option key (saturated_hardening) is an alias of v3's storage name (R)
    alias = "implicit_rate.isoharden.saturated_hardening"
    assert names.local(alias) == "implicit_rate.isoharden.R"
    assert names.canonical(alias) == "implicit_rate.isoharden.R"
    # an unknown name stays as given, so the caller's error message shows what was typed
    assert names.canonical("implicit_rate.nope") == "implicit_rate.nope"
    assert names.local("implicit_rate.nope") is None
