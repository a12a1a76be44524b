"""Input-file construction of the ``[Solvers]`` types (shared ``from_hit``)."""

from __future__ import annotations

from typing import Any, ClassVar

from neml2.schema import HitSchema


class HitObject:
    """Mixin: ``[Solvers]`` section, a ``hit`` schema and a schema-driven ``from_hit``.

    Options are read with the schema's typed readers; ``dependency`` options (other solver
    blocks) are resolved through the factory getter they declare (``get_solver``).
    """

    SECTION: ClassVar[str] = "Solvers"
    hit: ClassVar[HitSchema] = HitSchema()

    @classmethod
    def from_hit(cls, node: Any, factory: Any) -> Any:
        """Build from a HIT block (unknown options were rejected by the factory)."""
        from neml2.factory import kwargs_from_hit

        kwargs = kwargs_from_hit(cls, node, factory)
        for f in cls.hit.fields:
            if f.kind == "dependency" and f.knob in kwargs:
                kwargs[f.knob] = getattr(factory, str(f.getter))(kwargs[f.knob])
        return cls(**kwargs)


def read_int_flag(text: str) -> int:
    """NEML2 v3 reads ``check_negative_criterion`` with the integer reader: ``0`` or ``1``."""
    try:
        value = int(text.strip())
    except ValueError:
        raise ValueError(
            f"check_negative_criterion must be the integer 0 or 1 (read as an int, so "
            f"'true'/'false' are rejected), got {text!r}"
        ) from None
    if value not in (0, 1):
        raise ValueError(f"check_negative_criterion must be 0 or 1, got {value}")
    return value
