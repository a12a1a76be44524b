"""pyzag 2.x adapter: integrate neml2 equation systems with pyzag (``pip install neml2-models[pyzag]``)."""

try:
    import pyzag as _pyzag  # type: ignore[import-untyped, unused-ignore]  # noqa: F401
except ModuleNotFoundError as missing:
    if missing.name != "pyzag":
        raise
    raise ModuleNotFoundError(
        "neml2.pyzag needs the optional dependency pyzag 2.x, which is not installed: "
        "pip install 'neml2-models[pyzag]'",
        name="pyzag",
    ) from missing

from neml2.pyzag._model import NEML2PyzagModel as NEML2PyzagModel
from neml2.pyzag._operators import (
    CachingLU as CachingLU,
    NEML2BlockJacobian as NEML2BlockJacobian,
    NEML2BlockVector as NEML2BlockVector,
    NEML2SolvableBlockOperator as NEML2SolvableBlockOperator,
    NEML2Wrapper as NEML2Wrapper,
)

__all__ = [
    "CachingLU",
    "NEML2BlockJacobian",
    "NEML2BlockVector",
    "NEML2PyzagModel",
    "NEML2SolvableBlockOperator",
    "NEML2Wrapper",
]
