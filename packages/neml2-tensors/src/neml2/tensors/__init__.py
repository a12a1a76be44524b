"""Typed tensor layer of neml2: wrappers (Scalar, SR2, SSR4, ...), regions and math.

See tensors.md for conventions (Mandel SR2/SSR4, axial-vector WR2, MRP rotations).
All Python-number constructors and factories default to ``torch.float64``.
"""

from __future__ import annotations

from neml2.tensors.__about__ import (
    __version__ as __version__,
)
from neml2.tensors._ad_safe import (
    safe_exp as safe_exp,
)
from neml2.tensors._ad_safe import (
    safe_reciprocal as safe_reciprocal,
)
from neml2.tensors._ad_safe import (
    safe_sqrt as safe_sqrt,
)
from neml2.tensors._ad_safe import (
    safe_tanh as safe_tanh,
)
from neml2.tensors._algebra import (
    cross as cross,
)
from neml2.tensors._algebra import (
    det as det,
)
from neml2.tensors._algebra import (
    dev as dev,
)
from neml2.tensors._algebra import (
    dot as dot,
)
from neml2.tensors._algebra import (
    inner as inner,
)
from neml2.tensors._algebra import (
    inv as inv,
)
from neml2.tensors._algebra import (
    norm as norm,
)
from neml2.tensors._algebra import (
    norm_sq as norm_sq,
)
from neml2.tensors._algebra import (
    outer as outer,
)
from neml2.tensors._algebra import (
    r2_from_sr2 as r2_from_sr2,
)
from neml2.tensors._algebra import (
    r2_from_wr2 as r2_from_wr2,
)
from neml2.tensors._algebra import (
    skew as skew,
)
from neml2.tensors._algebra import (
    sym as sym,
)
from neml2.tensors._algebra import (
    tr as tr,
)
from neml2.tensors._algebra import (
    transpose as transpose,
)
from neml2.tensors._algebra import (
    unit as unit,
)
from neml2.tensors._algebra import (
    vdot as vdot,
)
from neml2.tensors._algebra import (
    vec_component as vec_component,
)
from neml2.tensors._algebra import (
    vec_from_scalars as vec_from_scalars,
)
from neml2.tensors._algebra import (
    vol as vol,
)
from neml2.tensors._dynamic import (
    Tensor as Tensor,
)
from neml2.tensors._elementwise import (
    abs as abs,
)
from neml2.tensors._elementwise import (
    acos as acos,
)
from neml2.tensors._elementwise import (
    asin as asin,
)
from neml2.tensors._elementwise import (
    atan as atan,
)
from neml2.tensors._elementwise import (
    clamp as clamp,
)
from neml2.tensors._elementwise import (
    cos as cos,
)
from neml2.tensors._elementwise import (
    cosh as cosh,
)
from neml2.tensors._elementwise import (
    exp as exp,
)
from neml2.tensors._elementwise import (
    heaviside as heaviside,
)
from neml2.tensors._elementwise import (
    log as log,
)
from neml2.tensors._elementwise import (
    log10 as log10,
)
from neml2.tensors._elementwise import (
    macaulay as macaulay,
)
from neml2.tensors._elementwise import (
    opaque_pow as opaque_pow,
)
from neml2.tensors._elementwise import (
    pow as pow,
)
from neml2.tensors._elementwise import (
    reciprocal as reciprocal,
)
from neml2.tensors._elementwise import (
    sign as sign,
)
from neml2.tensors._elementwise import (
    sin as sin,
)
from neml2.tensors._elementwise import (
    sinh as sinh,
)
from neml2.tensors._elementwise import (
    sqrt as sqrt,
)
from neml2.tensors._elementwise import (
    tan as tan,
)
from neml2.tensors._elementwise import (
    tanh as tanh,
)
from neml2.tensors._exp_map import (
    dexp_map as dexp_map,
)
from neml2.tensors._exp_map import (
    exp_map as exp_map,
)
from neml2.tensors._exp_map import (
    jvp_exp_map as jvp_exp_map,
)
from neml2.tensors._fused import (
    ProductsKernel as ProductsKernel,
)
from neml2.tensors._fused import (
    addcmul as addcmul,
)
from neml2.tensors._fused import (
    sum_products as sum_products,
)
from neml2.tensors._interpolation import (
    bilinear_interpolation as bilinear_interpolation,
)
from neml2.tensors._interpolation import (
    bilinear_interpolation_mixed_derivative as bilinear_interpolation_mixed_derivative,
)
from neml2.tensors._interpolation import (
    bilinear_interpolation_slopes as bilinear_interpolation_slopes,
)
from neml2.tensors._interpolation import (
    jvp_linear_interpolation as jvp_linear_interpolation,
)
from neml2.tensors._interpolation import (
    linear_interpolation as linear_interpolation,
)
from neml2.tensors._interpolation import (
    linear_interpolation_slope as linear_interpolation_slope,
)
from neml2.tensors._k import (
    equalize_tangent_k as equalize_tangent_k,
)
from neml2.tensors._k import (
    fullify as fullify,
)
from neml2.tensors._k import (
    identity_seed as identity_seed,
)
from neml2.tensors._k import (
    sub_batch_seed as sub_batch_seed,
)
from neml2.tensors._k import (
    sum_sub_batch as sum_sub_batch,
)
from neml2.tensors._logic import (
    allclose as allclose,
)
from neml2.tensors._logic import (
    equal as equal,
)
from neml2.tensors._logic import (
    ge as ge,
)
from neml2.tensors._logic import (
    gt as gt,
)
from neml2.tensors._logic import (
    le as le,
)
from neml2.tensors._logic import (
    lt as lt,
)
from neml2.tensors._logic import (
    where as where,
)
from neml2.tensors._primitive import (
    PrimitiveTensor as PrimitiveTensor,
)
from neml2.tensors._projectors import (
    apply as mandel_apply,
)
from neml2.tensors._projectors import (
    projectors as mandel_projectors,
)
from neml2.tensors._pytree import register as _register
from neml2.tensors._reduce import (
    cat as cat,
)
from neml2.tensors._reduce import (
    diff as diff,
)
from neml2.tensors._reduce import (
    linspace as linspace,
)
from neml2.tensors._reduce import (
    logspace as logspace,
)
from neml2.tensors._reduce import (
    mean as mean,
)
from neml2.tensors._reduce import (
    stack as stack,
)
from neml2.tensors._reduce import (
    sum as sum,
)
from neml2.tensors._reshape import (
    flatten_from as flatten_from,
)
from neml2.tensors._rotation_types import (
    MRP as MRP,
)
from neml2.tensors._rotation_types import (
    Quaternion as Quaternion,
)
from neml2.tensors._rotations import (
    compose as compose,
)
from neml2.tensors._rotations import (
    dist as dist,
)
from neml2.tensors._rotations import (
    drotate as drotate,
)
from neml2.tensors._rotations import (
    drotate_self as drotate_self,
)
from neml2.tensors._rotations import (
    dV as dV,
)
from neml2.tensors._rotations import (
    euler_rodrigues as euler_rodrigues,
)
from neml2.tensors._rotations import (
    gdist as gdist,
)
from neml2.tensors._rotations import (
    inverse as inverse,
)
from neml2.tensors._rotations import (
    jvp_compose as jvp_compose,
)
from neml2.tensors._rotations import (
    jvp_euler_rodrigues as jvp_euler_rodrigues,
)
from neml2.tensors._rotations import (
    jvp_rotate as jvp_rotate,
)
from neml2.tensors._rotations import (
    mandel_rotation as mandel_rotation,
)
from neml2.tensors._rotations import (
    quaternion_dist as quaternion_dist,
)
from neml2.tensors._rotations import (
    quaternion_rotation_matrix as quaternion_rotation_matrix,
)
from neml2.tensors._rotations import (
    rotate as rotate,
)
from neml2.tensors._rotations import (
    rotation_matrix as rotation_matrix,
)
from neml2.tensors._rotations import (
    shadow as shadow,
)
from neml2.tensors._rotations import (
    to_quaternion as to_quaternion,
)
from neml2.tensors._scalar import (
    Scalar as Scalar,
)
from neml2.tensors._second_order import (
    R2 as R2,
)
from neml2.tensors._second_order import (
    SR2 as SR2,
)
from neml2.tensors._ssr4 import (
    SSR4 as SSR4,
)
from neml2.tensors._vectors import (
    WR2 as WR2,
)
from neml2.tensors._vectors import (
    MillerIndex as MillerIndex,
)
from neml2.tensors._vectors import (
    Vec as Vec,
)
from neml2.tensors._wrapper import (
    TensorWrapper as TensorWrapper,
)

for _cls in (Scalar, Vec, R2, SR2, WR2, SSR4, MRP, Quaternion, MillerIndex):
    _register(_cls)
_register(Tensor)

__all__ = [
    "MRP",
    "R2",
    "SR2",
    "SSR4",
    "WR2",
    "MillerIndex",
    "PrimitiveTensor",
    "ProductsKernel",
    "Quaternion",
    "Scalar",
    "Tensor",
    "TensorWrapper",
    "Vec",
    "__version__",
    "abs",
    "acos",
    "addcmul",
    "allclose",
    "asin",
    "atan",
    "bilinear_interpolation",
    "bilinear_interpolation_mixed_derivative",
    "bilinear_interpolation_slopes",
    "cat",
    "clamp",
    "compose",
    "cos",
    "cosh",
    "cross",
    "dV",
    "det",
    "dev",
    "dexp_map",
    "diff",
    "dist",
    "dot",
    "drotate",
    "drotate_self",
    "equal",
    "equalize_tangent_k",
    "euler_rodrigues",
    "exp",
    "exp_map",
    "flatten_from",
    "fullify",
    "gdist",
    "ge",
    "gt",
    "heaviside",
    "identity_seed",
    "inner",
    "inv",
    "inverse",
    "jvp_compose",
    "jvp_euler_rodrigues",
    "jvp_exp_map",
    "jvp_linear_interpolation",
    "jvp_rotate",
    "le",
    "linear_interpolation",
    "linear_interpolation_slope",
    "linspace",
    "log",
    "log10",
    "logspace",
    "lt",
    "macaulay",
    "mandel_apply",
    "mandel_projectors",
    "mandel_rotation",
    "mean",
    "norm",
    "norm_sq",
    "opaque_pow",
    "outer",
    "pow",
    "quaternion_dist",
    "quaternion_rotation_matrix",
    "r2_from_sr2",
    "r2_from_wr2",
    "reciprocal",
    "rotate",
    "rotation_matrix",
    "safe_exp",
    "safe_reciprocal",
    "safe_sqrt",
    "safe_tanh",
    "shadow",
    "sign",
    "sin",
    "sinh",
    "skew",
    "sqrt",
    "stack",
    "sub_batch_seed",
    "sum",
    "sum_products",
    "sum_sub_batch",
    "sym",
    "tan",
    "tanh",
    "to_quaternion",
    "tr",
    "transpose",
    "unit",
    "vdot",
    "vec_component",
    "vec_from_scalars",
    "vol",
    "where",
]
