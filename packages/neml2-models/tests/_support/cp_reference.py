"""Independent numpy formulas for the crystal-plasticity tests (Mandel, WR2, MRP, FCC table)."""

from __future__ import annotations

import itertools

import numpy as np

SQ2 = np.sqrt(2.0)


def mandel(S: np.ndarray) -> np.ndarray:
    """Mandel vector ``(xx, yy, zz, √2 yz, √2 xz, √2 xy)`` of the symmetric part of ``S``."""
    S = 0.5 * (S + np.swapaxes(S, -1, -2))
    return np.stack([S[..., 0, 0], S[..., 1, 1], S[..., 2, 2],
                     SQ2 * S[..., 1, 2], SQ2 * S[..., 0, 2], SQ2 * S[..., 0, 1]], -1)  # fmt: skip


def full(m: np.ndarray) -> np.ndarray:
    """Full symmetric 3x3 of a Mandel vector."""
    out = np.zeros((*m.shape[:-1], 3, 3))
    for i in range(3):
        out[..., i, i] = m[..., i]
    for k, (i, j) in zip((3, 4, 5), ((1, 2), (0, 2), (0, 1)), strict=True):
        out[..., i, j] = out[..., j, i] = m[..., k] / SQ2
    return out


def axial(W: np.ndarray) -> np.ndarray:
    """Axial vector ``w`` of the skew part of ``W`` (``W x = w × x``)."""
    A = 0.5 * (W - np.swapaxes(W, -1, -2))
    return np.stack([A[..., 2, 1], A[..., 0, 2], A[..., 1, 0]], -1)


def skew_matrix(w: np.ndarray) -> np.ndarray:
    """Skew 3x3 of an axial vector."""
    out = np.zeros((*w.shape[:-1], 3, 3))
    out[..., 0, 1], out[..., 0, 2] = -w[..., 2], w[..., 1]
    out[..., 1, 0], out[..., 1, 2] = w[..., 2], -w[..., 0]
    out[..., 2, 0], out[..., 2, 1] = -w[..., 1], w[..., 0]
    return out


def mrp_matrix(r: np.ndarray) -> np.ndarray:
    """Rotation matrix of MRP ``r`` through the unit quaternion ``((1−|r|²), 2r)/(1+|r|²)``."""
    s = np.sum(r * r, -1)
    w = (1 - s) / (1 + s)
    x, y, z = (2 * r[..., i] / (1 + s) for i in range(3))
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
    ], -2)  # fmt: skip


def random_mrp(rng: np.random.Generator, n: int) -> np.ndarray:
    """MRPs of ``n`` random rotations, inside the unit ball (|r| < 1)."""
    axis = rng.normal(size=(n, 3))
    axis /= np.linalg.norm(axis, axis=-1, keepdims=True)
    angle = rng.uniform(0.1, 3.0, n)
    return axis * np.tan(angle / 4)[:, None]


def fcc_systems() -> list[tuple[np.ndarray, np.ndarray]]:
    """The 12 FCC {111}<110> systems written out: 4 planes, 3 in-plane <110> each (unit)."""
    planes = [(1, 1, 1), (-1, 1, 1), (1, -1, 1), (1, 1, -1)]
    dirs = [d for d in itertools.product((-1, 0, 1), repeat=3)
            if sorted(map(abs, d)) == [0, 1, 1] and next(c for c in d if c) > 0]  # fmt: skip
    out = []
    for n in planes:
        for d in dirs:
            if np.dot(n, d) == 0:
                out.append((np.array(d) / SQ2, np.array(n) / np.sqrt(3.0)))
    return out


def bcc_systems() -> list[tuple[np.ndarray, np.ndarray]]:
    """The 12 BCC {110}<111> systems: 6 {110} planes, 2 in-plane <111> each (unit)."""
    planes = [d for d in itertools.product((-1, 0, 1), repeat=3)
              if sorted(map(abs, d)) == [0, 1, 1] and next(c for c in d if c) > 0]  # fmt: skip
    dirs = [(1, 1, 1), (-1, 1, 1), (1, -1, 1), (1, 1, -1)]
    out = []
    for n in planes:
        for d in dirs:
            if np.dot(n, d) == 0:
                out.append((np.array(d) / np.sqrt(3.0), np.array(n) / SQ2))
    return out


def crystal_hit(dirs: str, planes: str, a: str = "1.5", extra: str = "") -> str:
    """``[Tensors]`` + ``[Data/crystal_geometry]`` of a cubic crystal (Miller rows ';'-separated)."""

    def tensor(name: str, rows: str) -> str:
        vals = "[" + ", ".join("[" + ", ".join(r.split()) + "]" for r in rows.split(";")) + "]"
        return (f"  [{name}]\n    type = Python\n"
                f"    expr = 'MillerIndex(torch.tensor({vals}))'\n  []\n")  # fmt: skip

    return (f"[Tensors]\n{tensor('sdirs', dirs)}{tensor('splanes', planes)}[]\n"
            f"[Data]\n  [crystal_geometry]\n    type = CubicCrystal\n    lattice_parameter = {a}\n"
            f"    slip_directions = 'sdirs'\n    slip_planes = 'splanes'\n{extra}  []\n[]\n")  # fmt: skip
