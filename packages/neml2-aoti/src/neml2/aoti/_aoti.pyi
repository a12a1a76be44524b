"""Type stub of the pybind11 module ``neml2.aoti._aoti`` (libneml2.so bindings)."""

from collections.abc import Mapping, Sequence
from os import PathLike
from pathlib import Path

import torch

ConvergenceError: type[RuntimeError]
FatalError: type[RuntimeError]

def canonicalize_inputs(
    inputs: dict[str, torch.Tensor],
    names: list[str],
    base_shapes: list[list[int]],
    device: torch.device,
    dtype: torch.dtype,
) -> tuple[dict[str, torch.Tensor], list[int]]:
    """Check and broadcast inputs to the canonical ``(*batch, *base)`` boundary."""

def env_truthy(value: str | None) -> bool:
    """Whether an environment value counts as true (not unset, '', 0, false, no, off)."""

def capture_solve_failure() -> bool:
    """Whether ``NEML2_CAPTURE_SOLVE_FAILURE`` is truthy."""

def keep_large_allocations() -> bool:
    """Opt in to the process's large-allocation policy (glibc's mmap and trim thresholds raised
    to 1 GiB; applied once); whether it is active."""

def cache_call_buffers() -> bool:
    """Opt in to the buffer cache of runtime calls (a caching CPU allocator in front of torch's;
    installed once); whether it is active."""

def buffer_cache_bytes() -> int:
    """Bytes of freed buffers the buffer cache holds for reuse."""

def _cpu_allocator_address() -> int:
    """The address of c10's current CPU allocator (tests: whether it was replaced)."""

def _throw(
    kind: str,
    message: str,
    converged_mask: torch.Tensor | None = None,
    unknowns: torch.Tensor | None = None,
) -> None:
    """Throw a C++ exception of the given kind to exercise the translator."""

def simd_path() -> str:
    """The SIMD path the native kernels take in this process (``NEML2_SIMD``, read once).

    ``auto`` or unset takes the widest supported path; an unknown name or a path this CPU lacks
    raises :class:`FatalError`.
    """

def supported_simd_paths() -> list[str]:
    """The SIMD paths this CPU and build support, ``"scalar"`` first and the widest last."""

def batched_dense_solve(
    A: torch.Tensor, b: torch.Tensor, *, simd: str | None = None, overwrite_b: bool = False
) -> torch.Tensor:
    """Solve ``A x = b`` per batch element: ``A (B, n, n)``, ``b (B, n)`` or ``(B, n, k)``.

    A singular element gives a non-finite ``x`` for that element only (no error). ``simd``
    forces a kernel path for this call (``"scalar"``, ``"avx2"``, ``"avx512"``); None takes
    :func:`simd_path`. Every path rounds identically. ``overwrite_b``: ``b`` is not needed
    afterwards, so the native kernel may solve in its memory and return ``x`` aliasing it (when
    ``b`` is contiguous and shares no memory with ``A``; otherwise ``b`` is left as it was).
    """

def batched_parts_solve(
    parts: Sequence[tuple[int, int, torch.Tensor]],
    n: int,
    b: torch.Tensor,
    *,
    simd: str | None = None,
    overwrite_b: bool = False,
) -> torch.Tensor:
    """:func:`batched_dense_solve` of the ``(B, n, n)`` matrices that are zero outside ``parts``.

    Each part ``(row, col, P)`` puts ``P (B, rows, cols)`` (any strides; batch 1 broadcasts) at
    ``A[:, row:row + rows, col:col + cols]``; parts are disjoint. The matrices are never assembled
    on the native path (CPU float32/float64, ``n <= 32``). ``overwrite_b`` as for
    :func:`batched_dense_solve` (no part may share memory with ``b`` for ``x`` to alias it).
    """

def sum_of_products(
    terms: Sequence[tuple[float, torch.Tensor | None, torch.Tensor]],
    *,
    simd: str | None = None,
) -> torch.Tensor:
    """``sum(scale * a * b for scale, a, b in terms)`` over broadcast operands, in one pass.

    ``a`` None stands for 1. Operands share one floating dtype on the CPU (any strides); the
    output is written once, in the memory order of the largest operand.
    """

DEFAULT_RETAINED_WORKSPACE_BYTES: int
"""Bytes of freed outputs a :class:`Workspace` keeps between scopes by default (128 MiB)."""

class Workspace:
    """Memory for the outputs of ``sum_of_products`` and ``workspace_empty`` inside a
    ``workspace_scope`` entered with it.

    A freed output's memory is reused for the next output of its byte size; between scopes up to
    ``retained_bytes`` of it is kept (the next solve starts warm), the rest is freed, and
    everything on :meth:`release` or deletion. Torch's allocator and malloc's settings are not
    touched. Thread-safe.
    """

    def __init__(self, retained_bytes: int = ...) -> None:
        """``retained_bytes``: by default :data:`DEFAULT_RETAINED_WORKSPACE_BYTES`."""
    @property
    def free_bytes(self) -> int:
        """Bytes of freed outputs kept for reuse."""
    def release(self) -> None:
        """Free every kept block now."""

class workspace_scope:
    """Context manager: inside it, this thread's ``sum_of_products`` and ``workspace_empty``
    outputs come from the workspace of the thread's outermost scope: ``workspace``, or (None) a
    temporary one freed when that scope exits (no page faults on the iterations of a Newton
    solve)."""

    def __init__(self, workspace: Workspace | None = None) -> None: ...
    def __enter__(self) -> workspace_scope: ...
    def __exit__(self, *args: object) -> bool: ...

def workspace_empty(sizes: Sequence[int], dtype: torch.dtype) -> torch.Tensor:
    """An uninitialized contiguous CPU tensor: from this thread's workspace inside a
    ``workspace_scope`` (its memory returns there when freed), else a plain ``torch.empty``."""

def workspace_free_bytes() -> int:
    """Bytes of freed outputs this thread's workspace holds for reuse (0 outside a scope)."""

_Tensors = Mapping[str, torch.Tensor]

class Model:
    """A compiled neml2 model (artifact of neml2-compile) run by libneml2.so."""

    def __init__(
        self,
        path: str | PathLike[str],
        device: torch.device | str | None = None,
        dtype: torch.dtype | str | None = None,
    ) -> None: ...
    def forward(
        self, inputs: _Tensors, param_overrides: _Tensors | None = None
    ) -> dict[str, torch.Tensor]:
        """Output values ``{name: (*B, *out_base)}`` in ``output_names`` order."""
    def jvp(
        self, inputs: _Tensors, tangents: _Tensors, param_overrides: _Tensors | None = None
    ) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
        """``(outputs, {out: sum_in dout/din . tangents[in]})`` for the compiled pairs."""
    def jacobian(
        self, inputs: _Tensors, param_overrides: _Tensors | None = None
    ) -> tuple[dict[str, torch.Tensor], dict[str, dict[str, torch.Tensor]]]:
        """``(outputs, J)`` with ``J[out][in]`` of shape ``(*B, *out_base, *in_base)``."""
    def param_jacobian(
        self, inputs: _Tensors, param_overrides: _Tensors | None = None
    ) -> tuple[dict[str, torch.Tensor], dict[str, dict[str, torch.Tensor]]]:
        """``(outputs, P)`` with ``P[out][param]`` of shape ``(*B, *out_base, *param_base)``
        (compiled pairs)."""
    def param_vjp(
        self, inputs: _Tensors, cotangents: _Tensors, param_overrides: _Tensors | None = None
    ) -> dict[str, torch.Tensor]:
        """Gradient of ``sum_out <cotangents[out], out>`` per compiled parameter."""
    def named_parameters(self) -> dict[str, torch.Tensor]:
        """Promoted parameters; in-place edits of the tensors reach the runtime."""
    def set_parameter(self, name: str, value: torch.Tensor) -> None:
        """Replace a promoted parameter (a ``(B, *param_base)`` value makes it batched)."""
    def set_solver_config(
        self,
        atol: float | None = None,
        rtol: float | None = None,
        miters: int | None = None,
        ls_type: str | None = None,
        ls_max_iters: int | None = None,
        ls_cutback: float | None = None,
        ls_c: float | None = None,
        substep_del_tol: float | None = None,
        collect_log: bool | None = None,
        chunk_rows: int | None = None,
    ) -> None:
        """Newton settings from the next call on; omitted settings keep their value.

        ``chunk_rows``: rows per call of an implicit segment's residual/Jacobian graphs (0: the
        whole batch; -1, the CPU default: each segment's block as ``neml2-compile`` recorded it,
        else 512)."""
    @property
    def solver_config(self) -> dict[str, float | int | str | bool]: ...
    def solver_log(self) -> list[str]:
        """Newton log lines of the last call (kept when ``collect_log`` is set)."""
    @property
    def input_names(self) -> list[str]: ...
    @property
    def output_names(self) -> list[str]: ...
    @property
    def input_base_shapes(self) -> list[list[int]]: ...
    @property
    def output_base_shapes(self) -> list[list[int]]: ...
    @property
    def input_types(self) -> list[str]: ...
    @property
    def output_types(self) -> list[str]: ...
    @property
    def parameter_base_shapes(self) -> dict[str, list[int]]: ...
    @property
    def derivatives(self) -> list[tuple[str, str]]: ...
    @property
    def parameter_derivatives(self) -> list[tuple[str, str]]: ...
    def jacobian_block_shape(self, output: str, input: str) -> list[int]: ...
    @property
    def device(self) -> torch.device: ...
    @property
    def dtype(self) -> torch.dtype: ...
    @property
    def artifact_root(self) -> Path: ...
