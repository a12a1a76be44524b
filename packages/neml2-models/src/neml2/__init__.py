"""neml2: PyTorch-native constitutive models for computational mechanics.

This ``__init__`` is owned by the ``neml2-models`` distribution. It keeps the
``neml2`` namespace open so that the sibling distributions (``neml2-tensors``,
``neml2-hit``, ``neml2-aoti``, ``neml2-eager-cpp``) contribute their
sub-packages from other directories (editable installs included).

The public API is imported lazily (module ``__getattr__``), so ``import neml2`` is cheap.
"""

from pkgutil import extend_path

__path__ = extend_path(__path__, __name__)

import importlib as _importlib
from typing import Any as _Any

from neml2.models.__about__ import __version__ as __version__

_LAZY: dict[str, str] = {
    "allow_autograd": "neml2._guard",
    "allow_einsum": "neml2._guard",
    "Model": "neml2.models.model",
    "ComposedModel": "neml2.models.composed",
    "DependencyResolver": "neml2.models.resolver",
    "ChainRuleDict": "neml2.models.chain_rule",
    "ChainRuleAction": "neml2.models.chain_rule",
    "TangentAction": "neml2.models.chain_rule",
    "register_neml2_object": "neml2.factory",
    "load_input": "neml2.factory",
    "load_string": "neml2.factory",
    "load_model": "neml2.factory",
    "load_nonlinear_system": "neml2.factory",
    "HitSchema": "neml2.schema",
    "DenseLU": "neml2.solvers",
    "SchurComplement": "neml2.solvers",
    "Newton": "neml2.solvers",
    "NewtonWithLineSearch": "neml2.solvers",
    "NonlinearResult": "neml2.solvers",
    "RetCode": "neml2.solvers",
    "ConvergenceError": "neml2.solvers",
    "AxisLayout": "neml2.es",
    "AssembledVector": "neml2.es",
    "AssembledMatrix": "neml2.es",
    "ModelNonlinearSystem": "neml2.es",
    "ImplicitUpdate": "neml2.models.common.implicit_update",
    "Driver": "neml2.drivers",
    "TransientDriver": "neml2.drivers",
    "TransientRegression": "neml2.drivers",
    "Verification": "neml2.drivers",
    "ModelUnitTest": "neml2.drivers",
    "ModelUnitTestReport": "neml2.drivers",
    "compile": "neml2.jit",
    "compiled_graph": "neml2.jit",
    "keep_large_allocations": "neml2.tensors.hooks",
    # NEML2 v3's Python entry point to the compiler (neml2-aoti[compile])
    "export_model_for_aoti": "neml2.aoti.compile",
    # the tensor types and [Tensors] sources, as NEML2 v3's top level exposes them
    **{
        t: "neml2.tensors"
        for t in ("Scalar", "SR2", "Vec", "R2", "SSR4", "WR2", "MRP", "MillerIndex", "Tensor")
    },
    "TensorWrapper": "neml2.tensors",
    # crystal geometry and the crystal-plasticity leaves
    **{t: "neml2.data" for t in ("CrystalGeometry", "CubicCrystal", "cubic_symmetry_operators")},
    **{
        t: f"neml2.models.solid_mechanics.crystal_plasticity.{m}"
        for m, ts in (
            (
                "predictors",
                (
                    "CrystalPlasticityDeformationGradientPredictor",
                    "CrystalPlasticityStrainPredictor",
                ),
            ),
            ("lattice_rates", ("ElasticStrainRate", "OrientationRate")),
            ("slip_kinematics", ("PlasticDeformationRate", "PlasticVorticity")),
            ("slip_rules", ("PowerLawSlipRule", "SumSlipRates")),
            ("resolved_shear", ("ResolvedShear",)),
            ("slip_strength", ("SingleSlipStrengthMap",)),
            ("slip_hardening", ("VoceSingleSlipHardeningRule",)),
        )
        for t in ts
    },
    **{f"CSV{t}": "neml2.tensor_sources.csv" for t in ("Scalar", "Vec", "SR2", "WR2")},
}
_SUBMODULES = (
    "log",
    "types",
    "solvers",
    "es",
    "models",
    "drivers",
    "data",
    "factory",
    "schema",
    "tensors",
    "hit",
    "settings",
    "pyzag",
    "aoti",
    "jit",
)
#: submodules another distribution provides, for the error when it is not installed
_PROVIDED_BY = {"aoti": "neml2-aoti", "hit": "neml2-hit", "tensors": "neml2-tensors"}

__all__ = ["__version__", *_LAZY, "hash_file", "log"]


def __getattr__(name: str) -> _Any:
    if name == "hash_file":
        # NEML2 v3's name: the file holding the git commit this distribution was built from
        # (written at build time by hatch_build.py)
        from pathlib import Path

        return Path(__file__).with_name("hash")
    module = _LAZY.get(name)
    if module is not None:
        try:
            imported = _importlib.import_module(module)
        except ModuleNotFoundError as e:
            if not module.startswith("neml2.aoti") or not (e.name or "").startswith("neml2."):
                raise
            raise AttributeError(
                f"module 'neml2' has no attribute '{name}': install neml2-aoti[compile] for it"
            ) from e
        value = getattr(imported, name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        try:
            return _importlib.import_module(f"neml2.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"neml2.{name}" or name not in _PROVIDED_BY:
                raise
            raise AttributeError(
                f"module 'neml2' has no attribute '{name}': install the "
                f"{_PROVIDED_BY[name]} distribution for neml2.{name}"
            ) from e
    raise AttributeError(f"module 'neml2' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
