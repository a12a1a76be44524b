r"""Public parameter names: what a model loaded by name calls its parameters outside Python.

Every route that hands a loaded model's parameters to a caller by name (a compiled artifact's
``named_parameters``/``-p``/``-d``, the eager C++ route) uses these names:

- the qualified py-eager names (``named_parameters()``/``named_buffers()``: NEML2 v3's names) of
  a composition (``ComposedModel``) or an ``ImplicitUpdate``;
- for a bare leaf, the same names prefixed by the model's name (``model.E``), as if the leaf
  were wrapped in a one-child composition.

A public name may also be an alias (:meth:`Model.parameter_name`: the option key as the leaf,
another path to a shared submodule); :meth:`PublicNames.local` resolves it.
"""

from __future__ import annotations

from dataclasses import dataclass

from neml2.models.model import Model

__all__ = ["PublicNames"]


@dataclass(frozen=True)
class PublicNames:
    """The public-name rule of one model loaded as ``[Models/<name>]``."""

    model: Model
    #: ``""`` for a composition or an ``ImplicitUpdate``, else ``"<name>."``
    prefix: str

    @classmethod
    def of(cls, model: Model, name: str) -> PublicNames:
        """The rule for ``model`` loaded from the block ``[Models/<name>]``."""
        from neml2.models.common.implicit_update import ImplicitUpdate
        from neml2.models.composed import ComposedModel

        wraps_children = isinstance(model, ComposedModel | ImplicitUpdate)
        return cls(model, "" if wraps_children else f"{name}.")

    def public(self, qualified: str) -> str:
        """The public name of the qualified py-eager name ``qualified``."""
        return self.prefix + qualified

    def local(self, public: str) -> str | None:
        """The qualified py-eager name a public name (or an alias of one) refers to; ``None``
        when it names no parameter or buffer of the model."""
        if not public.startswith(self.prefix):
            return None
        try:
            return self.model.parameter_name(public[len(self.prefix) :])
        except KeyError:
            return None

    def canonical(self, public: str) -> str:
        """``public`` with an alias resolved to the reported name (unchanged when unknown)."""
        local = self.local(public)
        return public if local is None else self.public(local)
