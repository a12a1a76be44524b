"""`neml2.types` is the v3-compatible namespace seen by `[Tensors] type = Python` expressions."""

from __future__ import annotations

import neml2.tensors as nt
import neml2.types as types


def test_alias_names() -> None:
    for name in (
        "SR2",
        "Scalar",
        "linspace",
        "logspace",
        "stack",
        "cat",
        "where",
        "dev",
        "rotate",
        "Tensor",
    ):
        assert name in types.__all__
        assert getattr(types, name) is getattr(nt, name)
    assert "TensorWrapper" not in types.__all__ and "__version__" not in types.__all__
    assert all(hasattr(types, n) for n in types.__all__)


def test_expression_namespace() -> None:
    ns = {n: getattr(types, n) for n in types.__all__}
    out = eval("dev(SR2.fill(100.0, 0.0, 0.0, 0.0, 0.0, 0.0))", ns)
    assert isinstance(out, nt.SR2)
    lin = eval("linspace(Scalar(0.0).dynamic_batch, Scalar(1.0).dynamic_batch, 3)", ns)
    assert lin.data.tolist() == [0.0, 0.5, 1.0]
