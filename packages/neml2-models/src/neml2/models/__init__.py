"""neml2 models: the ``Model`` base class, composition, chain rule and the model catalog.

Leaf models live in sub-packages (``neml2.models.common``, ...) and register themselves with
``@register_neml2_object`` when imported; the factory imports them on first use. Names below
are imported lazily so that ``import neml2`` stays cheap.
"""

import importlib as _importlib
from typing import Any as _Any

_LAZY = {
    "ComposedModel": "neml2.models.composed",
    "RouteModel": "neml2.models.route",
    "DependencyResolver": "neml2.models.resolver",
    "Model": "neml2.models.model",
    "NLParam": "neml2.models.model",
    "register_submodule": "neml2.models.model",
}

__all__ = [
    "ComposedModel",
    "DependencyResolver",
    "Model",
    "NLParam",
    "RouteModel",
    "register_submodule",
]


def __getattr__(name: str) -> _Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'neml2.models' has no attribute '{name}'")
    value = getattr(_importlib.import_module(module), name)
    globals()[name] = value
    return value
