"""Equation-system containers: axis layouts, assembled vectors and block matrices."""

from neml2.es._layout import (
    STRUCTURES as STRUCTURES,
    AxisGroup as AxisGroup,
    AxisLayout as AxisLayout,
    Structure as Structure,
    VariableInfo as VariableInfo,
    broadcast_batch as broadcast_batch,
)
from neml2.es._matrix import (
    AssembledMatrix as AssembledMatrix,
    MatrixPart as MatrixPart,
    block_product as block_product,
    block_sub as block_sub,
)
from neml2.es._vector import AssembledVector as AssembledVector
from neml2.es.nonlinear_system import (
    ModelNonlinearSystem as ModelNonlinearSystem,
    NonlinearSystem as NonlinearSystem,
)

__all__ = [
    "STRUCTURES",
    "AssembledMatrix",
    "AssembledVector",
    "AxisGroup",
    "AxisLayout",
    "MatrixPart",
    "ModelNonlinearSystem",
    "NonlinearSystem",
    "Structure",
    "VariableInfo",
    "block_product",
    "block_sub",
    "broadcast_batch",
]
