r"""Interior-edge operators on a cell axis (``N`` cells :math:`\to` ``N - 1`` interior edges).

The cells are the last sub-batch axis; edge :math:`i+\tfrac12` lies between cells :math:`i`
(left, L) and :math:`i+1` (right, R). All three are linear in the cell values, so their
Jacobian blocks are the constant bidiagonal ``(N - 1) x N`` matrices below (full layout); the
gradient and the flux are bilinear in (prefactor, cells) and (velocity, cells), so their only
second derivatives are those cross terms (blocks ``(N - 1) x N_a x N_b`` in the same layout).

* ``FiniteVolumeGradient``: :math:`g_{i+\frac12} = -\frac{p}{\Delta x}\,(u_{i+1} - u_i)`
  (``prefactor`` :math:`p`, may be promoted; ``dx`` :math:`\Delta x`: a number, or one value per
  edge on a sub-batch axis). :math:`\partial g/\partial u_{i+1} = -p/\Delta x`,
  :math:`\partial g/\partial u_i = p/\Delta x`, :math:`\partial g/\partial p = g/p`;
  :math:`\partial^2 g/\partial p\,\partial u_{i+1} = -1/\Delta x`,
  :math:`\partial^2 g/\partial p\,\partial u_i = 1/\Delta x`,
  :math:`\partial^2 g/\partial u^2 = \partial^2 g/\partial p^2 = 0`.
* ``FiniteVolumeUpwindedAdvectiveFlux``:
  :math:`F = v\,\bigl(u_R + H(v)\,(u_L - u_R)\bigr)` with the edge velocity ``v_edge``
  (``N - 1`` values) and :math:`H(0) = \tfrac12` (upwind: the left cell for :math:`v > 0`).
  :math:`\partial F/\partial u_L = v H`, :math:`\partial F/\partial u_R = v(1 - H)`,
  :math:`\partial F/\partial v = u_R + H(u_L - u_R)` (the Heaviside jump is not differentiated);
  :math:`\partial^2 F/\partial v\,\partial u_L = H`,
  :math:`\partial^2 F/\partial v\,\partial u_R = 1 - H` (each edge's own velocity),
  :math:`\partial^2 F/\partial u^2 = \partial^2 F/\partial v^2 = 0`.
* ``LinearlyInterpolateToCellEdges``: :math:`q_e = w_L q_L + w_R q_R`,
  :math:`w_L = (x_R - x_e)/(x_R - x_L)`, :math:`w_R = 1 - w_L`, with the cell centres :math:`x`
  (``cell_centers``, ``N``) and the interior edges :math:`x_e` (``cell_edges`` holds all
  ``N + 1`` edges, strictly increasing); ``cell_values`` :math:`q` may be promoted to a
  variable (then the only input; :math:`\partial^2 q_e/\partial q^2 = 0`). A list literal is
  taken with its last axis as the cells.

As in NEML2 v3, a ``dx`` list literal is a dynamic-batch value (one mesh per batch entry); a
per-edge spacing is a ``[Tensors]`` value with one sub-batch axis.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.finite_volume._cells import (
    cell_count,
    cells,
    explicit,
    left,
    right,
    table_cells,
)
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import Scalar, heaviside

__all__ = [
    "FiniteVolumeGradient",
    "FiniteVolumeUpwindedAdvectiveFlux",
    "LinearlyInterpolateToCellEdges",
]


def _jump(t: Any) -> Any:
    """``t_R - t_L`` at the interior edges."""
    return right(t) - left(t)


@register_neml2_object("FiniteVolumeGradient")
class FiniteVolumeGradient(Model):
    """Scaled gradient -(prefactor/dx)(u_R - u_L) at the interior edges of a cell axis."""

    SUPPORTS_SECOND_ORDER = True
    u: str
    hit = HitSchema(
        input("u", Scalar, "Cell values u (cells on the last sub-batch axis)"),
        output("grad_u", Scalar, "Scaled gradient at the N-1 interior edges"),
        parameter("dx", Scalar, "Cell-centre spacing (a number, or per edge)"),
        parameter("prefactor", Scalar, "Prefactor p (e.g. a diffusivity)", default="1.0",
                  allow_promotion=True),
    )  # fmt: skip

    def __post_init__(self) -> None:
        dx = self._get_param("dx")
        if bool((dx.data == 0).any()):
            raise ValueError("option 'dx': the cell spacing must be nonzero")

    def forward(self, u: Any, *promoted: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """The edge gradient and (with ``v``) its first and second tangents."""
        cells(u, f"variable '{self.u}'")
        dx = self._get_param("dx")
        p = self._get_param("prefactor", promoted)
        du = _jump(u)
        g = -(p / dx) * du
        if v is None:
            return g
        actions: dict[str, Any] = {"u": lambda d: -(p / dx) * _jump(explicit(d, u))}
        actions_2: dict[tuple[str, str], Any] = {}
        src = self.promoted_input("prefactor")
        if src is not None:
            actions[src] = lambda d: -(du / dx) * d
            # bilinear in (p, u): d2g[a_u, b_p] = -(b_p/dx) jump(a_u), and symmetrically
            actions_2[("u", src)] = lambda a, b: -(b / dx) * _jump(explicit(a, u))
            actions_2[(src, "u")] = lambda a, b: -(a / dx) * _jump(explicit(b, u))
        return g, *self.propagate_tangents(
            v, "grad_u", actions, output=g, v2=v2, vh=vh, actions_2=actions_2
        )


@register_neml2_object("FiniteVolumeUpwindedAdvectiveFlux")
class FiniteVolumeUpwindedAdvectiveFlux(Model):
    """First-order upwind advective flux v (u_R + H(v)(u_L - u_R)) at the interior edges."""

    SUPPORTS_SECOND_ORDER = True
    u: str
    v_edge: str
    hit = HitSchema(
        input("u", Scalar, "Cell values u (cells on the last sub-batch axis)"),
        input("v_edge", Scalar, "Advection velocity at the N-1 interior edges"),
        output("flux", Scalar, "Upwinded advective flux at the interior edges"),
    )

    def forward(self, u: Any, ve: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """The upwinded flux and (with ``v``) its first and second tangents."""
        n = cells(u, f"variable '{self.u}'")
        m = cells(ve, f"variable '{self.v_edge}'")
        if m != n - 1:
            raise ValueError(
                f"{type(self).__name__} ({self._hit_name}): variable '{self.v_edge}' has {m} "
                f"edge values but variable '{self.u}' has {n} cells (expected {n - 1} edges)"
            )
        h = heaviside(ve)
        uL, uR = left(u), right(u)
        up = uR + h * (uL - uR)
        F = ve * up
        if v is None:
            return F
        hR = 1.0 - h
        a, b = ve * h, ve * hR

        def du(d: Any) -> Any:
            e = explicit(d, u)
            return a * left(e) + b * right(e)

        def upwinded(d: Any) -> Any:
            """``H left(d) + (1 - H) right(d)`` of a cell tangent ``d``."""
            e = explicit(d, u)
            return h * left(e) + hR * right(e)

        actions: dict[str, Any] = {"u": du, "v_edge": lambda d: up * d}
        # bilinear in (v, u): d2F[a_u, b_v] = b_v (H left(a_u) + (1 - H) right(a_u))
        actions_2: dict[tuple[str, str], Any] = {
            ("u", "v_edge"): lambda p, q: q * upwinded(p),
            ("v_edge", "u"): lambda p, q: p * upwinded(q),
        }
        return F, *self.propagate_tangents(
            v, "flux", actions, output=F, v2=v2, vh=vh, actions_2=actions_2
        )


@register_neml2_object("LinearlyInterpolateToCellEdges")
class LinearlyInterpolateToCellEdges(Model):
    """Linear interpolation of cell-centred values to the interior cell edges."""

    SUPPORTS_SECOND_ORDER = True
    hit = HitSchema(
        output("edge_values", Scalar, "Interpolated values at the N-1 interior edges"),
        parameter("cell_values", Scalar, "Cell-centred values q (N cells)", allow_promotion=True),
        parameter("cell_centers", Scalar, "Cell-centre coordinates (N)"),
        parameter("cell_edges", Scalar, "Cell-edge coordinates (N+1, strictly increasing)"),
    )  # fmt: skip

    def __post_init__(self) -> None:
        xe = table_cells(self._get_param("cell_edges")).data
        xc = table_cells(self._get_param("cell_centers")).data
        if xe.dim() < 1 or xe.shape[-1] < 2 or bool((xe[..., 1:] <= xe[..., :-1]).any()):
            raise ValueError("option 'cell_edges': the cell edges must be strictly increasing")
        if xc.dim() < 1 or xc.shape[-1] != xe.shape[-1] - 1:
            raise ValueError(
                f"option 'cell_centers': {cell_count(self._get_param('cell_centers'))} centres "
                f"for {xe.shape[-1]} cell edges (expected one fewer centre than edges)"
            )
        if self.promoted_input("cell_values") is None:
            q = self._get_param("cell_values")
            if cell_count(q) != xc.shape[-1]:
                raise ValueError(
                    f"option 'cell_values': {cell_count(q)} values for {xc.shape[-1]} cells"
                )

    def output_sub_batch(self) -> dict[str, tuple[int, ...]]:
        """The edge values carry the ``N - 1`` interior edges (fixed by ``cell_edges``)."""
        n = cell_count(self._get_param("cell_edges"))
        return {self._var_renames.get("edge_values", "edge_values"): (n - 2,)}

    def _weights(self) -> tuple[Any, Any]:
        xc = table_cells(self._get_param("cell_centers"))
        xe = table_cells(self._get_param("cell_edges")).sub_batch[..., 1:-1]
        xL, xR = left(xc), right(xc)
        wL = (xR - xe) / (xR - xL)
        return wL, 1.0 - wL

    def forward(self, *promoted: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """The edge values and (with ``v``) their first and second tangents (linear: the second
        tangents are the first-order map of ``v2``)."""
        q = table_cells(self._get_param("cell_values", promoted))
        wL, wR = self._weights()
        src = self.promoted_input("cell_values")
        if src is not None:
            n, m = cells(q, f"variable '{src}'"), int(wL.sub_batch_shape[-1]) + 1
            if n != m:
                raise ValueError(
                    f"{type(self).__name__} ({self._hit_name}): variable '{src}' has {n} cells "
                    f"but 'cell_centers' has {m}"
                )
        qe = wL * left(q) + wR * right(q)
        if v is None:
            return qe
        actions: dict[str, Any] = {}
        if src is not None:

            def dq(d: Any) -> Any:
                e = explicit(d, q)
                return wL * left(e) + wR * right(e)

            actions[src] = dq
        return qe, *self.propagate_tangents(v, "edge_values", actions, output=qe, v2=v2, vh=vh)
