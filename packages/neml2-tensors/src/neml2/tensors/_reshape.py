"""Shape changes that hold for every batch size, the empty batch included.

``t.reshape((*t.shape[:k], -1))`` cannot infer ``-1`` when a leading (batch) axis has size 0:
every size fits. Merging the trailing axes states the size instead. It stays one ``reshape``
(``aten.view`` when traced), the op the compile pipeline's graph passes know, rather than
``flatten``.
"""

from __future__ import annotations

import math

import torch

__all__ = ["flatten_from"]


def flatten_from(t: torch.Tensor, k: int) -> torch.Tensor:
    r"""``t`` with axes ``k, k+1, ...`` merged into one (of size 1 when ``k == t.dim()``).

    .. math::  (n_0, \dots, n_{k-1}, n_k, \dots, n_{d-1}) \to (n_0, \dots, n_{k-1}, \textstyle\prod_{i \ge k} n_i)
    """
    return t.reshape((*t.shape[:k], math.prod(t.shape[k:])))
