r"""AOTInductor's C++ wrapper with raw-pointer views into a graph's outputs.

Inductor assembles an output such as a scalarized ``(B, 19, 19)`` Jacobian by writing each
component into a slice of one buffer (a concatenation). The default C++ wrapper declares every
slice as a tensor view of that buffer (``reinterpret_tensor_wrapper``: a new tensor object,
allocated and freed on every call) only to pass its data pointer to the fused kernel. For the
361 slices of a 19x19 Jacobian that fixed cost was about 60 µs a call, as much as the kernel's
arithmetic at 10^3 points.

:func:`raw_output_views` lowers with a wrapper that declares such a slice as a plain pointer
(``Neml2RawView``: ``data_ptr()`` and a no-op ``reset()``, the only members the wrapper uses on
a slice passed to a kernel) whenever that is provably the same memory for as long as it is used:

* the sliced buffer is an output of the graph (the wrapper hands it to the caller and never
  frees it, so the pointer cannot outlive its memory);
* the buffer is allocated by the graph and owns its memory from offset 0 (not an input, a
  constant or a view of another buffer, whose data pointer may carry a storage offset that the
  tensor view would not add);
* the slice has the buffer's dtype (the offset counts elements of the buffer).

Every other view keeps the default declaration. A raw view used as anything but a kernel's
pointer argument (e.g. returned as an output) does not compile; :func:`lower` then retries with
the default wrapper, so the option never changes what a graph computes.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["raw_output_views", "raw_output_views_active"]

_RAW_VIEW_STRUCT = """
// A slice of a graph output used only for its data pointer (no tensor object per call).
struct Neml2RawView {
  void* ptr;
  void* data_ptr() const { return ptr; }
  void reset() {}
};
"""


def _wrapper_class() -> Any:
    """The CPU C++ wrapper codegen with raw views into outputs (built on first use: it imports
    Inductor's private code generation modules)."""
    # Inductor's code generators are untyped private modules: handled as Any
    ir: Any = importlib.import_module("torch._inductor.ir")
    DTYPE_TO_CPP: Any = importlib.import_module("torch._inductor.codegen.cpp_utils").DTYPE_TO_CPP
    CppWrapperCpu: Any = importlib.import_module(
        "torch._inductor.codegen.cpp_wrapper_cpu"
    ).CppWrapperCpu
    DeferredLine: Any = importlib.import_module("torch._inductor.codegen.wrapper").DeferredLine
    V: Any = importlib.import_module("torch._inductor.virtualized").V

    class RawOutputViewWrapper(CppWrapperCpu):  # type: ignore[misc]
        @staticmethod
        def create(*args: Any, **kwargs: Any) -> RawOutputViewWrapper:
            return RawOutputViewWrapper()

        def write_header(self) -> None:
            super().write_header()
            self.header.splice(_RAW_VIEW_STRUCT)

        def codegen_deferred_allocation(self, name: str, view: Any) -> None:
            base = view.data
            while isinstance(base, ir.MutableBox):
                base = base.data
            base_name = base.get_name() if isinstance(base, ir.Buffer) else None
            if (
                base_name is None
                or isinstance(base, (ir.InputBuffer, ir.ConstantBuffer))
                or isinstance(base.get_layout(), ir.NonOwningLayout)  # itself a view
                or base.get_layout().offset != 0
                or base_name in V.graph.graph_inputs
                or base_name in V.graph.constants
                or base_name not in V.graph.get_output_names()
                or view.get_dtype() != base.get_dtype()
                or view.get_dtype() not in DTYPE_TO_CPP
            ):
                super().codegen_deferred_allocation(name, view)
                return
            ctype = DTYPE_TO_CPP[view.get_dtype()]
            offset = self.codegen_sizevar(view.layout.offset)
            self.writeline(
                DeferredLine(
                    name,
                    f"auto {name} = Neml2RawView{{static_cast<{ctype}*>({base_name}.data_ptr()) "
                    f"+ {offset}}};  // raw view",
                )
            )

    return RawOutputViewWrapper


@contextmanager
def raw_output_views() -> Iterator[None]:
    """Within: AOTInductor lowerings on CPU use the raw-view wrapper (this process only; the
    previous code generator is restored on exit)."""
    from torch._inductor.codegen import common

    common.init_backend_registration()
    previous = common.device_codegens["cpu"]
    common.device_codegens["cpu"] = dataclasses.replace(
        previous, cpp_wrapper_codegen=_wrapper_class()
    )
    try:
        yield
    finally:
        common.device_codegens["cpu"] = previous


def raw_output_views_active() -> bool:
    """Whether CPU lowerings in this process currently use the raw-view wrapper."""
    from torch._inductor.codegen import common

    codegen = common.device_codegens.get("cpu")
    wrapper = getattr(codegen, "cpp_wrapper_codegen", None)
    return getattr(wrapper, "__name__", "") == "RawOutputViewWrapper"
