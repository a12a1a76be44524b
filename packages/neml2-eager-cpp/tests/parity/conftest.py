"""The six routes of the route-parity suite, each behind :class:`neml2.models.RouteModel`.

``route_model(scenario)`` loads ``[Models/model]`` of ``scenarios/<scenario>.i`` on the route
under test:

- py-eager: ``neml2.load_model`` of the input file;
- py-jit: the same model after ``neml2.compile`` (``torch.compile`` of its forward methods);
- py-aoti: ``neml2.load_model`` of the compiled artifact's stub (``AOTIModel``);
- cpp-aoti, cpp-dispatch, cpp-eager: the C++ route classes, held by a small C++ test host only
  as ``neml2::aoti::RouteModel`` and driven through :class:`parity._host.HostRoute`.

The C++ routes need the host (``$NEML2_ROUTE_HOST``, built with the eager C++ tests by
``nox -s cpp``). Without it they are skipped, unless ``NEML2_ROUTE_PARITY_ALL=1`` (set by
``nox -s cpp``) makes a missing host an error. The compiled routes read the scenario artifacts
of :mod:`neml2.aoti.compile.testing` (prebuilt in ``$NEML2_TEST_ARTIFACTS``, else compiled).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import neml2
from neml2.aoti.compile.testing import scenario_artifact, scenario_input
from neml2.models import RouteModel
from parity._host import HostRoute

ROUTES = ("py-eager", "py-jit", "py-aoti", "cpp-aoti", "cpp-dispatch", "cpp-eager")
#: batch rows per chunk on cpp-dispatch: the suite's batches of 5 and 64 rows span several chunks
DISPATCH_CHUNK_ROWS = 2

RouteLoader = Callable[[str], RouteModel]


@pytest.fixture(autouse=True)
def _float64_on_cpu(device: torch.device, dtype: torch.dtype) -> None:
    """The suite's tolerances are float64's, and the C++ test host runs on the CPU."""
    if dtype != torch.float64 or device.type != "cpu":
        pytest.skip("the route-parity suite runs in float64 on the CPU")


def _host() -> Path:
    host = os.environ.get("NEML2_ROUTE_HOST")
    if host and Path(host).is_file():
        return Path(host)
    why = f"the C++ routes need the test host $NEML2_ROUTE_HOST (got {host!r}; built by nox -s cpp)"
    if os.environ.get("NEML2_ROUTE_PARITY_ALL") == "1":
        pytest.fail(why)
    pytest.skip(why)


def _load(route: str, scenario: str) -> RouteModel:
    if route in ("py-eager", "py-jit"):
        model = neml2.load_model(scenario_input(scenario), "model", dtype=torch.float64)
        return neml2.compile(model) if route == "py-jit" else model
    artifact = scenario_artifact(scenario, "float64")
    if route == "py-aoti":
        return neml2.load_model(artifact.parent / "model_aoti.i", "model")
    host = _host()
    if route == "cpp-aoti":
        return HostRoute("cpp-aoti", [artifact], host=host)
    if route == "cpp-dispatch":
        stub = artifact.parent / "model_aoti.i"
        return HostRoute("cpp-dispatch", [stub, "model", str(DISPATCH_CHUNK_ROWS)], host=host)
    return HostRoute("cpp-eager", [scenario_input(scenario), "model"], host=host)


@pytest.fixture(scope="session", params=ROUTES)
def route(request: pytest.FixtureRequest) -> str:
    """The route under test."""
    return str(request.param)


@pytest.fixture(scope="session")
def _loaded() -> Iterator[dict[tuple[str, str], RouteModel]]:
    models: dict[tuple[str, str], RouteModel] = {}
    yield models
    for m in models.values():
        if isinstance(m, HostRoute):
            m.close()


@pytest.fixture
def route_model(route: str, _loaded: dict[tuple[str, str], RouteModel]) -> RouteLoader:
    """``scenario`` → its ``[Models/model]`` on the route under test (loaded once per session)."""

    def get(scenario: str) -> RouteModel:
        key = (route, scenario)
        if key not in _loaded:
            _loaded[key] = _load(route, scenario)
        return _loaded[key]

    return get
