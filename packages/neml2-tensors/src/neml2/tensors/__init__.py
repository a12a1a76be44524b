"""Typed tensor layer of neml2: wrappers (Scalar, SR2, SSR4, ...), regions and math.

See ``docs/design/tensors.md`` for conventions (Mandel SR2/SSR4, axial-vector WR2, MRP
rotations).
All Python-number constructors and factories default to ``torch.float64``.
"""

from __future__ import annotations

from neml2.tensors.__about__ import (
    __version__ as __version__,
)
from neml2.tensors._ad_safe import (
    safe_exp as safe_exp,
    safe_reciprocal as safe_reciprocal,
    safe_sqrt as safe_sqrt,
    safe_tanh as safe_tanh,
)
from neml2.tensors._algebra import (
    cross as cross,
    det as det,
    dev as dev,
    dot as dot,
    inner as inner,
    inv as inv,
    norm as norm,
    norm_sq as norm_sq,
    outer as outer,
    r2_from_sr2 as r2_from_sr2,
    r2_from_wr2 as r2_from_wr2,
    skew as skew,
    sym as sym,
    tr as tr,
    transpose as transpose,
    unit as unit,
    vdot as vdot,
    vec_component as vec_component,
    vec_from_scalars as vec_from_scalars,
    vol as vol,
)
from neml2.tensors._dynamic import (
    Tensor as Tensor,
)
from neml2.tensors._elementwise import (
    abs as abs,
    acos as acos,
    asin as asin,
    atan as atan,
    clamp as clamp,
    cos as cos,
    cosh as cosh,
    exp as exp,
    heaviside as heaviside,
    log as log,
    log10 as log10,
    macaulay as macaulay,
    opaque_pow as opaque_pow,
    pow as pow,
    reciprocal as reciprocal,
    sign as sign,
    sin as sin,
    sinh as sinh,
    sqrt as sqrt,
    tan as tan,
    tanh as tanh,
)
from neml2.tensors._exp_map import (
    dexp_map as dexp_map,
    exp_map as exp_map,
    jvp_exp_map as jvp_exp_map,
)
from neml2.tensors._fused import (
    ProductsKernel as ProductsKernel,
    addcmul as addcmul,
    sum_products as sum_products,
)
from neml2.tensors._interpolation import (
    bilinear_interpolation as bilinear_interpolation,
    bilinear_interpolation_mixed_derivative as bilinear_interpolation_mixed_derivative,
    bilinear_interpolation_slopes as bilinear_interpolation_slopes,
    jvp_linear_interpolation as jvp_linear_interpolation,
    linear_interpolation as linear_interpolation,
    linear_interpolation_slope as linear_interpolation_slope,
)
from neml2.tensors._k import (
    equalize_tangent_k as equalize_tangent_k,
    fullify as fullify,
    identity_seed as identity_seed,
    sub_batch_seed as sub_batch_seed,
    sum_sub_batch as sum_sub_batch,
)
from neml2.tensors._logic import (
    allclose as allclose,
    equal as equal,
    ge as ge,
    gt as gt,
    le as le,
    lt as lt,
    where as where,
)
from neml2.tensors._primitive import (
    PrimitiveTensor as PrimitiveTensor,
)
from neml2.tensors._projectors import (
    apply as mandel_apply,
    projectors as mandel_projectors,
)
from neml2.tensors._pytree import register as _register
from neml2.tensors._reduce import (
    cat as cat,
    diff as diff,
    linspace as linspace,
    logspace as logspace,
    mean as mean,
    stack as stack,
    sum as sum,
)
from neml2.tensors._reshape import (
    flatten_from as flatten_from,
)
from neml2.tensors._rotation_types import (
    MRP as MRP,
    Quaternion as Quaternion,
)
from neml2.tensors._rotations import (
    compose as compose,
    dist as dist,
    drotate as drotate,
    drotate_self as drotate_self,
    dV as dV,
    euler_rodrigues as euler_rodrigues,
    gdist as gdist,
    inverse as inverse,
    jvp_compose as jvp_compose,
    jvp_euler_rodrigues as jvp_euler_rodrigues,
    jvp_rotate as jvp_rotate,
    mandel_rotation as mandel_rotation,
    quaternion_dist as quaternion_dist,
    quaternion_rotation_matrix as quaternion_rotation_matrix,
    rotate as rotate,
    rotation_matrix as rotation_matrix,
    shadow as shadow,
    to_quaternion as to_quaternion,
)
from neml2.tensors._scalar import (
    Scalar as Scalar,
)
from neml2.tensors._second_order import (
    R2 as R2,
    SR2 as SR2,
)
from neml2.tensors._ssr4 import (
    SSR4 as SSR4,
)
from neml2.tensors._vectors import (
    WR2 as WR2,
    MillerIndex as MillerIndex,
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
