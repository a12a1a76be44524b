"""neml2.aoti: the runtime of compiled (AOT Inductor) neml2 models.

The heavy lifting lives in the C++ library ``libneml2.so`` (no Python inside); this package
holds its pybind11 bindings and needs nothing but torch at runtime:

* :class:`Model` (``neml2.aoti.Model(path, device=None, dtype=None)``) runs an artifact of
  ``neml2-compile``: ``forward``, ``jvp``, ``jacobian``, ``param_jacobian``, ``param_vjp``,
  ``named_parameters``, ``set_parameter``, ``set_solver_config``;
* :func:`canonicalize_inputs` and :func:`broadcast_batch_shapes`: the runtime's canonical input
  boundary (names, trailing shapes, dtype, device, batch broadcasting), for routes that call it
  from Python (the eager C++ route's bridge);
* ``ConvergenceError`` is the one recoverable error class shared with neml2-models (see
  :mod:`neml2.aoti._errors`), ``FatalError`` every other runtime error;
* :func:`simd_path` / :func:`supported_simd_paths`: the CPU code path of the native kernels
  (``NEML2_SIMD=auto|avx512|avx2|scalar``);
* :func:`keep_large_allocations` and :func:`cache_call_buffers`: process-wide allocation
  policies, applied only when called (or opted into by environment, see the README);
* ``AOTIModel``, the ``[Models]`` shim of an artifact, needs neml2-models and is imported on
  first access (``neml2.aoti.AOTIModel``), or by the factory through the ``neml2.objects``
  entry point.
"""

from typing import Any as _Any

import torch as _torch  # loads libtorch before the extension module

# first: refuses a torch release other than the one the extension module was built against
from neml2.aoti import torch_pin as torch_pin
from neml2.aoti.__about__ import __version__ as __version__
from neml2.aoti._aoti import (
    Model as Model,
    broadcast_batch_shapes as broadcast_batch_shapes,
    buffer_cache_bytes as buffer_cache_bytes,
    cache_call_buffers as cache_call_buffers,
    canonicalize_inputs as canonicalize_inputs,
    capture_solve_failure as capture_solve_failure,
    env_truthy as env_truthy,
    keep_large_allocations as keep_large_allocations,
    simd_path as simd_path,
    supported_simd_paths as supported_simd_paths,
)
from neml2.aoti._errors import ConvergenceError as ConvergenceError, FatalError as FatalError
from neml2.aoti._paths import (
    cmake_prefix_path as cmake_prefix_path,
    include_dir as include_dir,
    library_dir as library_dir,
)

del _torch


def __getattr__(name: str) -> _Any:
    if name == "AOTIModel":
        from neml2.aoti._shim import AOTIModel

        return AOTIModel
    raise AttributeError(f"module 'neml2.aoti' has no attribute '{name}'")
