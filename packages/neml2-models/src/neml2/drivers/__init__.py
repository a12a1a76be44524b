"""Drivers: run models through load histories (``[Drivers]``) and check their results."""

from __future__ import annotations

from neml2.drivers._base import Driver as Driver
from neml2.drivers._compare import ComparisonError as ComparisonError
from neml2.drivers.model_unit_test import (
    ModelUnitTest as ModelUnitTest,
    ModelUnitTestReport as ModelUnitTestReport,
)
from neml2.drivers.regression import TransientRegression as TransientRegression
from neml2.drivers.transient import TransientDriver as TransientDriver
from neml2.drivers.verification import Verification as Verification

__all__ = [
    "ComparisonError",
    "Driver",
    "ModelUnitTest",
    "ModelUnitTestReport",
    "TransientDriver",
    "TransientRegression",
    "Verification",
]
