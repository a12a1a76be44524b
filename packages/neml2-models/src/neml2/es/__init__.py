"""Equation-system containers: axis layouts, assembled vectors and block matrices."""

from neml2.es._layout import STRUCTURES as STRUCTURES
from neml2.es._layout import AxisGroup as AxisGroup
from neml2.es._layout import AxisLayout as AxisLayout
from neml2.es._layout import Structure as Structure
from neml2.es._layout import VariableInfo as VariableInfo
from neml2.es._layout import broadcast_batch as broadcast_batch
from neml2.es._matrix import AssembledMatrix as AssembledMatrix
from neml2.es._matrix import MatrixPart as MatrixPart
from neml2.es._matrix import block_product as block_product
from neml2.es._matrix import block_sub as block_sub
from neml2.es._vector import AssembledVector as AssembledVector
from neml2.es.nonlinear_system import ModelNonlinearSystem as ModelNonlinearSystem
from neml2.es.nonlinear_system import NonlinearSystem as NonlinearSystem

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
