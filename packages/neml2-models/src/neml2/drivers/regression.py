"""``TransientRegression``: run a transient driver and compare every gold value.

The gold file (``reference``, relative to the input file) is a ``torch.save`` dict of result keys
(read with ``weights_only=True``) or a legacy TorchScript module whose ``state_dict()`` holds
them. Every gold key must be in the result (extra result keys are ignored); each value must match
with exact shape and dtype within ``rtol``/``atol``.
"""

from __future__ import annotations

import pickle
import warnings
import zipfile
from pathlib import Path
from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.drivers._base import Driver
from neml2.drivers._compare import ComparisonError, compare, report
from neml2.schema import HitSchema, dependency, option

__all__ = ["TransientRegression", "load_reference"]

_torch_load: Any = torch.load
_jit_load: Any = torch.jit.load


def _is_torchscript(path: Path) -> bool:
    if not zipfile.is_zipfile(path):
        return False
    with zipfile.ZipFile(path) as z:
        return any(n.endswith("/constants.pkl") for n in z.namelist())


def load_reference(path: Path) -> dict[str, torch.Tensor]:
    """Gold values: a saved dict, or the ``state_dict()`` of a legacy TorchScript module."""
    if not path.is_file():
        raise FileNotFoundError(f"TransientRegression: reference file '{path}' does not exist")
    if _is_torchscript(path):
        with warnings.catch_warnings():  # the legacy format is read on purpose
            warnings.simplefilter("ignore", DeprecationWarning)
            module = _jit_load(str(path), map_location="cpu")
        return {str(k): v for k, v in module.state_dict().items()}
    try:
        gold = _torch_load(path, weights_only=True, map_location="cpu")
    except (RuntimeError, pickle.UnpicklingError, zipfile.BadZipFile, EOFError) as e:
        raise ValueError(
            f"TransientRegression: cannot read reference '{path}' as a torch.save dict or a "
            f"TorchScript module: {e}"
        ) from e
    if not isinstance(gold, dict) or not all(isinstance(v, torch.Tensor) for v in gold.values()):
        raise ValueError(
            f"TransientRegression: reference '{path}' is not a dict of tensors "
            f"(got {type(gold).__name__})"
        )
    return {str(k): v for k, v in gold.items()}


@register_neml2_object("TransientRegression")
class TransientRegression(Driver):
    """Run a TransientDriver and compare its results with a gold file."""

    hit = HitSchema(
        dependency("driver", "get_driver", "The TransientDriver to run"),
        option("reference", str, "Gold result file (relative to the input file)"),
        option("rtol", float, "Relative tolerance", default=1e-5),
        option("atol", float, "Absolute tolerance", default=1e-8),
    )

    def __init__(
        self,
        *,
        driver: Any,
        reference: str | Path,
        rtol: float = 1e-5,
        atol: float = 1e-8,
        factory: Any = None,
        name: str | None = None,
    ) -> None:
        super().__init__(factory=factory, name=name)
        self.driver = self._dependency(driver, "get_driver")
        if not hasattr(self.driver, "result"):
            raise ValueError(
                f"option 'driver': {type(self.driver).__name__} records no results "
                f"(expected a TransientDriver)"
            )
        ref = Path(reference)
        if not ref.is_absolute() and factory is not None:
            ref = factory.directory / ref
        self.reference = ref
        self.rtol = float(rtol)
        self.atol = float(atol)

    def run(self) -> bool:
        """Run the driver and compare; raise :class:`ComparisonError` listing the mismatches."""
        self.driver.run()
        res = self.driver.result()
        gold = load_reference(self.reference)
        lines: list[str] = []
        for key, expected in gold.items():
            actual = res.get(key)
            if actual is None:
                lines.append(f"  {key}: missing from the results")
                continue
            line = compare(key, actual, expected, self.rtol, self.atol)
            if line is not None:
                lines.append(line)
        if lines:
            raise ComparisonError(
                report(
                    f"TransientRegression: {len(lines)} of {len(gold)} reference value(s) differ "
                    f"from '{self.reference}' (rtol={self.rtol:g}, atol={self.atol:g}):",
                    lines,
                )
            )
        return True
