"""pyzag 2.x adapter: integrate neml2 equation systems with pyzag (``pip install neml2-models[pyzag]``)."""

from neml2.pyzag._model import NEML2PyzagModel as NEML2PyzagModel
from neml2.pyzag._operators import CachingLU as CachingLU
from neml2.pyzag._operators import NEML2BlockJacobian as NEML2BlockJacobian
from neml2.pyzag._operators import NEML2BlockVector as NEML2BlockVector
from neml2.pyzag._operators import NEML2SolvableBlockOperator as NEML2SolvableBlockOperator
from neml2.pyzag._operators import NEML2Wrapper as NEML2Wrapper

__all__ = [
    "CachingLU",
    "NEML2BlockJacobian",
    "NEML2BlockVector",
    "NEML2PyzagModel",
    "NEML2SolvableBlockOperator",
    "NEML2Wrapper",
]
