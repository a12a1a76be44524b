"""neml2.allow_autograd / allow_einsum contexts and the NEML2_STRICT_FORWARD forward guard."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from typing import Any

import pytest
import torch

import neml2
from neml2 import _guard
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output
from neml2.tensors import Scalar, Vec


class _Dot(Model):
    """y = x·x through torch.einsum (not allowed in strict forwards)."""

    hit = HitSchema(input("x", Vec, "x"), output("y", Scalar, "y"))

    def forward(self, x: Any) -> Any:
        return Scalar(torch.einsum("...i,...i->...", x.data, x.data))


class _GradInside(Model):
    """y = d(sum x^3)/dx = 3x^2 computed with autograd inside the forward."""

    hit = HitSchema(input("x", Scalar, "x"), output("y", Scalar, "y"))
    use_backward = False

    def forward(self, x: Any) -> Any:
        with torch.enable_grad():
            d = x.data.detach().requires_grad_(True)
            if self.use_backward:
                (d**3).sum().backward()
                assert d.grad is not None
                return Scalar(d.grad)
            (g,) = torch.autograd.grad((d**3).sum(), d)
            return Scalar(g)


class _Cube(Model):
    """y = x^3 with derivatives from the request_AD fallback."""

    hit = HitSchema(input("x", Scalar, "x"), output("y", Scalar, "y"))

    def __post_init__(self) -> None:
        self.request_AD()

    def forward(self, x: Any) -> Any:
        return x * x * x


@pytest.fixture
def strict(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_guard, "STRICT", _guard.STRICT)  # restored at teardown
    monkeypatch.setenv("NEML2_STRICT_FORWARD", "1")
    assert _guard.refresh_strict_forward()


@pytest.fixture
def lenient(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_guard, "STRICT", _guard.STRICT)
    monkeypatch.setenv("NEML2_STRICT_FORWARD", "0")
    assert not _guard.refresh_strict_forward()


def test_contexts_nest_and_are_thread_local() -> None:
    assert neml2.allow_autograd is _guard.allow_autograd and "allow_einsum" in neml2.__all__
    seen: list[tuple[str, ...]] = []
    with neml2.allow_autograd("outer"), neml2.allow_autograd("inner"), neml2.allow_einsum("e"):
        assert _guard.allowed_reasons("autograd") == ("outer", "inner")
        assert _guard.allowed_reasons("einsum") == ("e",)
        t = threading.Thread(target=lambda: seen.append(_guard.allowed_reasons("autograd")))
        t.start()
        t.join()
    assert seen == [()]
    assert _guard.allowed_reasons("autograd") == () and _guard.allowed_reasons("einsum") == ()
    with (
        pytest.raises(ValueError, match=r"allow_einsum\(reason\): give a non-empty reason"),
        neml2.allow_einsum(" "),
    ):
        pass


@pytest.mark.usefixtures("lenient")
def test_not_strict_unless_1() -> None:
    x = Vec(torch.tensor([1.0, 2.0, 2.0], dtype=torch.float64))
    torch.testing.assert_close(_Dot()(x).data, torch.tensor(9.0, dtype=torch.float64))
    torch.testing.assert_close(_GradInside()(Scalar(x.data)).data, 3 * x.data**2)


@pytest.mark.usefixtures("strict")
def test_strict_einsum() -> None:
    x = Vec(torch.tensor([1.0, 2.0, 2.0], dtype=torch.float64))
    m = _Dot()
    with pytest.raises(RuntimeError, match=r"torch\.einsum called inside the forward of _Dot.*"
                       r"NEML2_STRICT_FORWARD=1.*neml2\.allow_einsum\(reason\)"):  # fmt: skip
        m(x)
    with neml2.allow_einsum("test: einsum is fine here"):
        torch.testing.assert_close(m(x).data, torch.tensor(9.0, dtype=torch.float64))
    with neml2.allow_autograd("the wrong escape"), pytest.raises(RuntimeError, match="einsum"):
        m(x)
    # outside a model call nothing is guarded
    torch.testing.assert_close(torch.einsum("i,i->", x.data, x.data), x.data.dot(x.data))


@pytest.mark.usefixtures("strict")
@pytest.mark.parametrize(("backward", "name"), [(False, "torch.autograd.grad"),
                                                (True, "Tensor.backward")])  # fmt: skip
def test_strict_autograd(backward: bool, name: str) -> None:
    m = _GradInside()
    m.use_backward = backward
    x = Scalar(torch.tensor([1.0, -2.0], dtype=torch.float64))
    with pytest.raises(RuntimeError, match=rf"{name} called inside the forward of _GradInside"):
        m(x)
    with neml2.allow_autograd("test: local autograd"):
        torch.testing.assert_close(m(x).data, 3 * x.data**2)


@pytest.mark.usefixtures("strict")
def test_strict_request_ad_is_allowed() -> None:
    """The request_AD fallback opens allow_autograd itself."""
    x = Scalar(torch.tensor([0.5, 2.0], dtype=torch.float64))
    _, J = _Cube().jacobian({"x": x})
    torch.testing.assert_close(J["y"]["x"].data, 3 * x.data**2)


def test_env_var_at_import() -> None:
    code = (
        "import torch, neml2\n"
        "from neml2.models.model import Model\n"
        "class M(Model):\n"
        "    def forward(self, x):\n"
        "        return torch.einsum('i,i->', x, x)\n"
        "try:\n"
        "    M()(torch.ones(2))\n"
        "except RuntimeError as e:\n"
        "    print('guarded' if 'allow_einsum' in str(e) else e)\n"
    )
    env = {**os.environ, "NEML2_STRICT_FORWARD": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip() == "guarded"
