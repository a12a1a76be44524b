r"""Sources spread over the ``N`` cell centres (output cells on a new sub-batch axis).

* ``DumpInSmallestBin``: :math:`s = (m, 0, \dots, 0)`: the whole ``magnitude`` :math:`m` goes
  into the first (smallest) cell; :math:`\partial s_c/\partial m = \delta_{c0}`, no
  dependence on the centres (only their number :math:`N` is used).
* ``SmearedDeltaSource``: a Gaussian-smeared point source at ``location`` :math:`x_0`,

  .. math::  s_c = m\,\varphi_c, \qquad
     \varphi_c = \frac{1}{w\sqrt{2\pi}} \exp\Bigl(-\tfrac12 \frac{r_c^2}{w^2}\Bigr),
     \qquad r_c = x_c - x_0,

  with ``width`` :math:`w > 0` and ``cell_centers`` :math:`x_c` (both may be promoted). With
  :math:`D = r^2 - w^2`: :math:`\partial\varphi/\partial x_0 = \varphi r/w^2 =
  -\partial\varphi/\partial x_c`, :math:`\partial\varphi/\partial w = \varphi D/w^3`;
  :math:`\partial^2\varphi/\partial x_0^2 = \varphi D/w^4`,
  :math:`\partial^2\varphi/\partial x_0\partial w = \varphi r (r^2 - 3w^2)/w^5`,
  :math:`\partial^2\varphi/\partial w^2 = \varphi (r^4 - 5 r^2 w^2 + 2 w^4)/w^6`
  (:math:`x_c` enters through :math:`r` only: its derivatives are those of :math:`x_0` with
  the sign of each :math:`x_c` factor flipped), :math:`\partial^2 s/\partial m\,\partial a =
  \partial\varphi/\partial a`.

A list literal for ``cell_centers`` is taken with its last axis as the cells (sub-batch).
"""

from __future__ import annotations

import math
from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.models.finite_volume._cells import cell_count, cells, table_cells
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import Scalar, exp

__all__ = ["DumpInSmallestBin", "SmearedDeltaSource"]


def _centres(model: Model, promoted: Any) -> Any:
    """The cell centres (cells on the last sub-batch axis)."""
    xc = table_cells(model._get_param("cell_centers", promoted))
    src = model.promoted_input("cell_centers")
    cells(xc, f"variable '{src}'" if src is not None else "option 'cell_centers'")
    return xc


def _static_cells(model: Model, option: str) -> dict[str, tuple[int, ...]]:
    """``{output: (N,)}`` when the centres are constant (else unknown until called)."""
    if model.promoted_input("cell_centers") is not None:
        return {}
    n = cell_count(model._get_param("cell_centers"))
    return {model._var_renames.get(option, option): (n,)}


@register_neml2_object("DumpInSmallestBin")
class DumpInSmallestBin(Model):
    """Put the whole source magnitude into the first cell: (m, 0, ..., 0)."""

    SUPPORTS_SECOND_ORDER = True
    hit = HitSchema(
        input("magnitude", Scalar, "Source magnitude m"),
        output("dumped_source", Scalar, "Source per cell (m in the first cell)",
               default="state/dumped_source"),
        parameter("cell_centers", Scalar, "Cell-centre coordinates (their number N is used)",
                  allow_promotion=True),
    )  # fmt: skip

    def output_sub_batch(self) -> dict[str, tuple[int, ...]]:
        """The source carries the cells."""
        return _static_cells(self, "dumped_source")

    def forward(self, m: Any, *promoted: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """The dumped source and (with ``v``) its tangents."""
        xc = _centres(self, promoted)
        n = int(xc.sub_batch_shape[-1])
        first = torch.eye(n, dtype=m.data.dtype, device=m.data.device)[0]
        e = Scalar(first, sub_batch_ndim=1)
        s = m * e
        if v is None:
            return s
        return s, *self.propagate_tangents(
            v, "dumped_source", {"magnitude": lambda d: e * d}, output=s, v2=v2, vh=vh
        )


@register_neml2_object("SmearedDeltaSource")
class SmearedDeltaSource(Model):
    """Gaussian-smeared point source m exp(-(x_c - x0)^2/(2 w^2))/(w sqrt(2 pi))."""

    SUPPORTS_SECOND_ORDER = True
    hit = HitSchema(
        input("magnitude", Scalar, "Source magnitude m"),
        input("location", Scalar, "Source location x0"),
        output("smeared_source", Scalar, "Source per cell", default="state/smeared_source"),
        parameter("width", Scalar, "Smearing width w > 0", allow_promotion=True),
        parameter("cell_centers", Scalar, "Cell-centre coordinates x_c", allow_promotion=True),
    )  # fmt: skip

    def __post_init__(self) -> None:
        if self.promoted_input("width") is None:
            w = self._get_param("width")
            if bool((w.data <= 0).any()):
                raise ValueError("option 'width': the smearing width must be positive")

    def output_sub_batch(self) -> dict[str, tuple[int, ...]]:
        """The source carries the cells."""
        return _static_cells(self, "smeared_source")

    def forward(
        self, m: Any, x0: Any, *promoted: Any, v: Any = None, v2: Any = None, vh: Any = None
    ) -> Any:
        """The smeared source and (with ``v``) its first and second tangents."""
        w = self._get_param("width", promoted)
        xc = _centres(self, promoted)
        r = xc - x0
        w2 = w * w
        phi = exp(-0.5 * r * r / w2) / (w * math.sqrt(2.0 * math.pi))
        s = m * phi
        if v is None:
            return s
        D = r * r - w2
        # first derivatives of phi by argument key ("x0", "w", "xc"), sign of xc = -x0
        d1 = {"x0": phi * r / w2, "w": phi * D / (w2 * w)}
        d1["xc"] = -d1["x0"]
        hxx = phi * D / (w2 * w2)
        hxw = phi * r * (r * r - 3.0 * w2) / (w2 * w2 * w)
        d2 = {
            ("x0", "x0"): hxx, ("xc", "xc"): hxx, ("x0", "xc"): -hxx, ("xc", "x0"): -hxx,
            ("x0", "w"): hxw, ("w", "x0"): hxw, ("xc", "w"): -hxw, ("w", "xc"): -hxw,
            ("w", "w"): phi * (r * r * r * r - 5.0 * r * r * w2 + 2.0 * w2 * w2) / (w2 * w2 * w2),
        }  # fmt: skip
        keys = {"x0": "location", "w": self.promoted_input("width"),
                "xc": self.promoted_input("cell_centers")}  # fmt: skip
        names = {k: n for k, n in keys.items() if n is not None}
        actions: dict[str, Any] = {"magnitude": lambda d: phi * d}
        actions_2: dict[tuple[str, str], Any] = {}
        for a, na in names.items():
            actions[na] = lambda d, g=m * d1[a]: g * d
            actions_2[("magnitude", na)] = lambda p, q, g=d1[a]: g * p * q
            actions_2[(na, "magnitude")] = lambda p, q, g=d1[a]: g * p * q
            for b, nb in names.items():
                actions_2[(na, nb)] = lambda p, q, h=m * d2[(a, b)]: h * p * q
        return s, *self.propagate_tangents(
            v, "smeared_source", actions, output=s, v2=v2, vh=vh, actions_2=actions_2
        )
