"""Native kernels offered by another installed distribution, when installed and usable.

A distribution offers kernels as a module named by an entry point of group ``neml2.kernels``
(neml2-aoti: ``neml2.aoti.kernels``); neml2-models requires none. Each kernel is looked up once,
by name, in those modules (entry points in name order; one that fails to import is skipped), and
callers fall back to ATen ops without it. A kernel is used only where it is exactly a drop-in:
plain CPU float32/float64 tensors of one dtype, no autograd or forward-AD recording, no
torch.compile/export tracing, no dispatch or functorch mode (:func:`plain_cpu`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from importlib import metadata
from types import ModuleType
from typing import cast

import torch
from torch.autograd import forward_ad

from neml2.tensors.hooks import install_output_allocator, plain_eager

__all__ = [
    "KERNELS_GROUP",
    "kernel_modules",
    "native",
    "native_workspace",
    "plain_cpu",
    "release_native_workspace",
    "sum_of_products",
    "workspace_empty",
]

#: The entry point group whose values are modules of native kernels.
KERNELS_GROUP = "neml2.kernels"

_MODULES: list[ModuleType] | None = None
_FOUND: dict[str, Callable[..., torch.Tensor] | None] = {}
_is_wrapped = torch._C._functorch.is_functorch_wrapped_tensor


def kernel_modules() -> list[ModuleType]:
    """The modules of the ``neml2.kernels`` entry points that import (found once, name order)."""
    global _MODULES
    if _MODULES is None:
        found = []
        for ep in sorted(metadata.entry_points(group=KERNELS_GROUP), key=lambda e: e.name):
            try:
                module = ep.load()
            except ImportError:  # e.g. a torch the extension was not built for: ATen instead
                continue
            if isinstance(module, ModuleType):
                found.append(module)
        _MODULES = found
    return _MODULES


def native(name: str) -> Callable[..., torch.Tensor] | None:
    """Kernel ``name`` of the first :func:`kernel_modules` module that has it (looked up once),
    else None."""
    if name not in _FOUND:
        fns = (getattr(m, name, None) for m in kernel_modules())
        _FOUND[name] = next((fn for fn in fns if callable(fn)), None)
    return _FOUND[name]


def plain_cpu(ref: torch.Tensor, *others: torch.Tensor) -> bool:
    """Every tensor a plain CPU float32/float64 one of ``ref``'s dtype, nothing recorded."""
    if ref.dtype not in (torch.float64, torch.float32):
        return False
    if ref.device.type != "cpu" or any(
        t.dtype != ref.dtype or t.device.type != "cpu" for t in others
    ):
        return False
    if not plain_eager(ref, *others):
        return False
    if torch.is_grad_enabled() and any(t.requires_grad for t in (ref, *others)):
        return False
    if forward_ad._current_level >= 0:
        return False
    return not any(_is_wrapped(t) for t in (ref, *others))


def sum_of_products(
    terms: list[tuple[float, torch.Tensor | None, torch.Tensor]],
) -> torch.Tensor | None:
    """``sum(scale * a * b)`` by the native one-pass kernel; None when it does not apply."""
    fn = native("sum_of_products")
    if fn is None:
        return None
    tensors = [t for _, a, b in terms for t in (a, b) if t is not None]
    if not plain_cpu(tensors[0], *tensors[1:]):
        return None
    return fn(terms)


_WORKSPACES: weakref.WeakKeyDictionary[object, object] = weakref.WeakKeyDictionary()


def native_workspace(owner: object | None = None) -> AbstractContextManager[object]:
    """A scope in which the native kernels' outputs, and the large eager outputs of
    :func:`workspace_empty`, reuse memory freed within it (neml2-aoti's ``workspace_scope``: no
    fresh pages per Newton iteration); a no-op without neml2-aoti.

    With ``owner`` (e.g. a solver), the memory is ``owner``'s own neml2-aoti ``Workspace``,
    which keeps up to its retained bytes (128 MiB) from one scope to the next and is freed with
    ``owner``; without (or for an owner that is unhashable or not weakly referenceable), a
    temporary one freed when the scope exits.
    """
    scope = native("workspace_scope")
    if scope is None:
        return nullcontext()
    make = native("Workspace")
    if owner is None or make is None:
        return cast(AbstractContextManager[object], scope())
    try:
        workspace = _WORKSPACES.get(owner)
        if workspace is None:
            workspace = _WORKSPACES[owner] = make()
    except TypeError:  # an owner that is unhashable or cannot be weakly referenced
        return cast(AbstractContextManager[object], scope())
    return cast(AbstractContextManager[object], scope(workspace))


def release_native_workspace(owner: object) -> None:
    """Free the memory ``owner``'s workspace (see :func:`native_workspace`) keeps between
    scopes; its next scope starts cold."""
    workspace = _WORKSPACES.pop(owner, None)
    if workspace is not None:
        workspace.release()  # type: ignore[attr-defined]


def workspace_empty(shape: Sequence[int], dtype: torch.dtype) -> torch.Tensor:
    """An uninitialized contiguous CPU tensor: from this thread's :func:`native_workspace` when
    one is active, else ``torch.empty``. Installed as neml2-tensors' output allocator."""
    fn = native("workspace_empty")
    return torch.empty(tuple(shape), dtype=dtype) if fn is None else fn(list(shape), dtype)


install_output_allocator(workspace_empty)
