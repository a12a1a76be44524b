"""``[Settings]``: example batch shapes (sub-batch declarations) and ``dynamic_batch``.

``example_batch_shape = '(2,)'`` applies to every variable; a sub-section
``[example_batch_shape] var = '(2; 12)' []`` declares per variable (not both). Grammar:
``(dyn, ...)`` or ``(dyn, ...; sub, ...)`` — only a spec containing ``;`` declares a sub-batch
(``'(2; )'`` declares an empty one). A declaration covers every lag ``var~n``.
Unknown keys are ignored (as in NEML2 v3).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from neml2.hit import Section

__all__ = ["BatchSpec", "Settings", "parse_batch_shape"]

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}
_LAG = re.compile(r"^(.*)~(\d+)$")


@dataclass(frozen=True)
class BatchSpec:
    """A parsed batch shape: dynamic part and (if declared) sub-batch part."""

    dynamic: tuple[int, ...]
    sub: tuple[int, ...] | None = None


def parse_batch_shape(text: str, where: str = "example_batch_shape") -> BatchSpec:
    """Parse ``'(2,)'``, ``'(2; 12)'``, ``'(; 100)'`` … into a :class:`BatchSpec`."""
    s = text.strip()
    if not (s.startswith("(") and s.endswith(")")):
        raise ValueError(
            f"{where}: batch shape {text!r} must be parenthesised, e.g. '(2,)' or '(2; 12)'"
        )
    body = s[1:-1]
    if body.count(";") > 1:
        raise ValueError(f"{where}: batch shape {text!r} has more than one ';'")

    def dims(part: str) -> tuple[int, ...]:
        toks = [t.strip() for t in part.split(",") if t.strip()]
        out = []
        for t in toks:
            if not t.isdigit():
                raise ValueError(f"{where}: invalid dimension {t!r} in batch shape {text!r}")
            out.append(int(t))
        return tuple(out)

    if ";" in body:
        dyn, sub = body.split(";")
        return BatchSpec(dims(dyn), dims(sub))
    return BatchSpec(dims(body), None)


@dataclass
class Settings:
    """Parsed ``[Settings]``."""

    example_batch_shape: BatchSpec | None = None
    per_variable: dict[str, BatchSpec] = field(default_factory=dict)
    dynamic_batch: bool = True

    @classmethod
    def from_root(cls, root: Section) -> Settings:
        """Read every top-level ``[Settings]`` section of ``root`` (first value wins)."""
        out = cls()
        seen_uniform = False
        for sec in root.sections("Settings"):
            where = f"{sec.file}:{sec.line}: [Settings]"
            if sec.has_field("example_batch_shape") and not seen_uniform:
                out.example_batch_shape = parse_batch_shape(
                    sec.get_str("example_batch_shape"), f"{where} option 'example_batch_shape'"
                )
                seen_uniform = True
            sub = sec.section("example_batch_shape")
            if sub is not None:
                for f in sub.fields():
                    out.per_variable.setdefault(
                        f.name, parse_batch_shape(f.value, f"{where}/example_batch_shape/{f.name}")
                    )
            if sec.has_field("dynamic_batch"):
                v = sec.get_str("dynamic_batch").strip().lower()
                if v not in _TRUE | _FALSE:
                    raise ValueError(
                        f"{where} option 'dynamic_batch': expected true/false/1/0/yes/no/on/off, got {v!r}"
                    )
                out.dynamic_batch = v in _TRUE
        if out.example_batch_shape is not None and out.per_variable:
            raise ValueError(
                "[Settings]: give either example_batch_shape = '...' or an [example_batch_shape] "
                "sub-section, not both"
            )
        out._check_lags()
        return out

    def _check_lags(self) -> None:
        groups: dict[str, dict[str, BatchSpec]] = {}
        for name, spec in self.per_variable.items():
            m = _LAG.match(name)
            groups.setdefault(m.group(1) if m else name, {})[name] = spec
        for base, specs in groups.items():
            subs = {s.sub for s in specs.values()}
            if len(subs) > 1:
                raise ValueError(
                    f"[Settings]/example_batch_shape: lags of '{base}' are declared with different "
                    f"sub-batch shapes: {', '.join(f'{k}={v.sub}' for k, v in specs.items())}"
                )

    def batch_spec(self, variable: str) -> BatchSpec | None:
        """Declaration covering ``variable`` (a lag ``x~n`` uses ``x``'s)."""
        spec = self.per_variable.get(variable)
        if spec is None:
            m = _LAG.match(variable)
            if m:
                spec = self.per_variable.get(m.group(1))
        return spec if spec is not None else self.example_batch_shape

    def sub_batch_shape(self, variable: str) -> tuple[int, ...] | None:
        """Declared sub-batch shape of ``variable`` (``None`` if undeclared)."""
        spec = self.batch_spec(variable)
        return None if spec is None else spec.sub

    def to_dict(self) -> dict[str, Any]:
        """Plain representation (for export metadata)."""
        return {
            "example_batch_shape": self.example_batch_shape,
            "per_variable": dict(self.per_variable),
            "dynamic_batch": self.dynamic_batch,
        }
