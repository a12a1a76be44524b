r"""Elastic constants given as ``coefficients`` + ``coefficient_types`` (shared helpers).

Each coefficient becomes a Scalar parameter named by its symbol (``YOUNGS_MODULUS`` → ``E``,
``POISSONS_RATIO`` → ``nu``, ``BULK_MODULUS`` → ``K``, ``SHEAR_MODULUS`` → ``G``,
``LAME_LAMBDA`` → ``lambda``, ``P_WAVE_MODULUS`` → ``M``); coefficients may be promoted to
variables. Any two distinct isotropic constants are converted to :math:`(K, G)`, e.g.
:math:`K = E/(3(1-2\nu))`, :math:`G = E/(2(1+\nu))`. Conversions run on hyper-dual numbers so the
first and second partial derivatives with respect to promoted coefficients come out alongside the
values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import torch

from neml2.models._checks import positive_and_finite
from neml2.models._scalar_function import HyperDual
from neml2.tensors import Scalar

__all__ = [
    "SYMBOLS",
    "check_KG",
    "cubic_constants",
    "declare_coefficients",
    "isotropic_KG",
    "pair_to_KG",
]

SYMBOLS = {
    "YOUNGS_MODULUS": "E",
    "POISSONS_RATIO": "nu",
    "BULK_MODULUS": "K",
    "SHEAR_MODULUS": "G",
    "LAME_LAMBDA": "lambda",
    "P_WAVE_MODULUS": "M",
}
_POSITIVE = ("E", "K", "G", "M")


def pair_to_KG(c: Mapping[str, Any]) -> tuple[Any, Any]:
    """(K, G) from exactly two isotropic constants (closed forms for all 15 pairs)."""
    has = set(c)
    E, nu, K, G = c.get("E"), c.get("nu"), c.get("K"), c.get("G")
    lam, M = c.get("lambda"), c.get("M")
    if E is not None and nu is not None:
        return E / (3.0 * (1.0 - 2.0 * nu)), E / (2.0 * (1.0 + nu))
    if K is not None and G is not None:
        return K, G
    if E is not None and G is not None:
        return E * G / (3.0 * (3.0 * G - E)), G
    if E is not None and K is not None:
        return K, 3.0 * K * E / (9.0 * K - E)
    if K is not None and nu is not None:
        return K, 3.0 * K * (1.0 - 2.0 * nu) / (2.0 * (1.0 + nu))
    if G is not None and nu is not None:
        return 2.0 * G * (1.0 + nu) / (3.0 * (1.0 - 2.0 * nu)), G
    if lam is not None and G is not None:
        return lam + 2.0 * G / 3.0, G
    if lam is not None and K is not None:
        return K, 1.5 * (K - lam)
    if lam is not None and nu is not None:
        return lam * (1.0 + nu) / (3.0 * nu), lam * (1.0 - 2.0 * nu) / (2.0 * nu)
    if E is not None and lam is not None:
        r = (E * E + 9.0 * lam * lam + 2.0 * E * lam).sqrt()
        return (E + 3.0 * lam + r) / 6.0, (E - 3.0 * lam + r) / 4.0
    if G is not None and M is not None:
        return M - 4.0 * G / 3.0, G
    if K is not None and M is not None:
        return K, 0.75 * (M - K)
    if lam is not None and M is not None:
        return (M + 2.0 * lam) / 3.0, 0.5 * (M - lam)
    if nu is not None and M is not None:
        return M * (1.0 + nu) / (3.0 * (1.0 - nu)), M * (1.0 - 2.0 * nu) / (2.0 * (1.0 - nu))
    if E is not None and M is not None:
        s = (E * E + 9.0 * M * M - 10.0 * E * M).sqrt()
        return (3.0 * M - E + s) / 6.0, (3.0 * M + E - s) / 8.0
    raise ValueError(f"unsupported combination of elastic constants {sorted(has)}")


def _duals(values: Mapping[str, Any], wrt: Mapping[str, str], second: bool) -> dict[str, HyperDual]:
    """Hyper-dual coefficients: variables (keyed by input name ``wrt[sym]``) or constants."""
    return {
        k: HyperDual.variable(x, wrt[k], second) if k in wrt else HyperDual.lift(x, second)
        for k, x in values.items()
    }


def isotropic_KG(
    values: Mapping[str, Any], wrt: Mapping[str, str] | None = None, second: bool = False
) -> tuple[HyperDual, HyperDual]:
    """Bulk and shear moduli; derivatives w.r.t. the coefficients in ``wrt`` (symbol → input)."""
    K, G = pair_to_KG(_duals(values, wrt or {}, second))
    return K, G


def cubic_constants(
    values: Mapping[str, Any], wrt: Mapping[str, str] | None = None, second: bool = False
) -> tuple[HyperDual, HyperDual, HyperDual]:
    r"""Cubic :math:`C_1 = E(1-\nu)/((1+\nu)(1-2\nu))`, :math:`C_2 = E\nu/((1+\nu)(1-2\nu))`,
    :math:`C_3 = 2G`."""
    c = _duals(values, wrt or {}, second)
    E, nu, G = c["E"], c["nu"], c["G"]
    den = (1.0 + nu) * (1.0 - 2.0 * nu)
    return E * (1.0 - nu) / den, E * nu / den, 2.0 * G


def declare_coefficients(
    model: Any,
    coefficients: Sequence[str],
    types: Sequence[str],
    factory: Any,
    *,
    count: int,
    required: Sequence[str] | None = None,
) -> list[str]:
    """Declare one Scalar parameter per coefficient (named by symbol); returns the symbols.

    Checks ``count`` coefficients with matching ``coefficient_types``, known and distinct types
    (``required``: the exact set of symbols), and literal values in range (moduli > 0,
    Poisson's ratio in (-1, 0.5)).
    """
    coefficients = [str(c) for c in coefficients]
    types = [str(t) for t in types]
    if len(types) != len(coefficients):
        raise ValueError(
            f"option 'coefficient_types': {len(types)} type(s) {types} given for "
            f"{len(coefficients)} 'coefficients' {coefficients}; they must match one to one"
        )
    if len(coefficients) != count:
        raise ValueError(f"option 'coefficients': expected {count} values, got {coefficients}")
    unknown = [t for t in types if t not in SYMBOLS]
    if unknown:
        raise ValueError(
            f"option 'coefficient_types': unknown type(s) {unknown}; expected {list(SYMBOLS)}"
        )
    syms = [SYMBOLS[t] for t in types]
    if len(set(syms)) != len(syms):
        raise ValueError(f"option 'coefficient_types': duplicate types in {types}")
    if required is not None and set(syms) != set(required):
        names = [k for k, s in SYMBOLS.items() if s in required]
        raise ValueError(f"option 'coefficient_types': expected the types {names}, got {types}")
    for sym, spec in zip(syms, coefficients, strict=True):
        try:
            model.declare_typed_parameter(sym, spec, Scalar, factory=factory, allow_nonlinear=True)
            model._param_options[sym] = "coefficients"
        except ValueError as e:
            raise ValueError(f"option 'coefficients': {e}") from e
        if model.promoted_input(sym) is not None:
            continue
        x = model._get_param(sym).data
        if sym in _POSITIVE and not positive_and_finite(x):
            raise ValueError(
                f"option 'coefficients': {sym} must be positive and finite, got {spec}"
            )
        if sym == "nu" and not bool(((x > -1.0) & (x < 0.5)).all()):
            raise ValueError(
                f"option 'coefficients': Poisson's ratio must lie in (-1, 0.5), got {spec}"
            )
    return syms


def check_KG(model: Any, syms: Sequence[str]) -> None:
    """For all-literal isotropic constants, require the converted K and G to be positive."""
    if any(model.promoted_input(s) is not None for s in syms):
        return
    K, G = isotropic_KG({s: model._get_param(s).to(dtype=torch.float64) for s in syms})
    for name, x in (("bulk modulus", K.v), ("shear modulus", G.v)):
        if not bool((x.data > 0).all()):
            raise ValueError(
                f"option 'coefficients': the implied {name} is not positive ({x.data.tolist()})"
            )
