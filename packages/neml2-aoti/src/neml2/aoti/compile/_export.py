"""``neml2.export_model_for_aoti``: NEML2 v3's Python entry point to the compile pipeline.

The call form of v3 scripts, mapped onto :func:`~neml2.aoti.compile.compile_model`: the model
``model_name`` of ``hit_path`` is compiled into the artifact folder ``output_dir`` itself
(``metadata.json`` and ``<device>/<dtype>/*.pt2``, no HIT stub), and its metadata is returned.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from neml2.aoti.compile._pipeline import compile_model

__all__ = ["RENAME_NAMESPACES", "export_model_for_aoti"]

#: The keys of ``renames``: which names a rename applies to.
RENAME_NAMESPACES = ("inputs", "outputs", "parameters")


def _rename_pairs(renames: Mapping[str, Mapping[str, str]] | None) -> dict[str, list[str]]:
    """``{"inputs": {old: new}, ...}`` as the ``OLD:NEW`` lists of ``compile_model``."""
    given = dict(renames or {})
    unknown = sorted(set(given) - set(RENAME_NAMESPACES))
    if unknown:
        raise ValueError(
            f"Unknown rename namespace(s) {unknown}; expected a subset of "
            f"{list(RENAME_NAMESPACES)}."
        )
    pairs: dict[str, list[str]] = {}
    for space in RENAME_NAMESPACES:
        table = given.get(space, {})
        if not isinstance(table, Mapping):
            raise ValueError(f"renames['{space}']: expected a mapping old name -> new name")
        pairs[space] = [f"{old}:{new}" for old, new in table.items()]
    return pairs


def _batch_spec(spec: Mapping[str, str] | str | None) -> str | list[str] | None:
    """``example_batch_shape`` as one uniform spec or ``name=(dyn;sub)`` entries."""
    if spec is None or isinstance(spec, str):
        return spec
    return [f"{name}={shape}" for name, shape in spec.items()]


def export_model_for_aoti(
    hit_path: str | Path,
    model_name: str,
    output_dir: str | Path,
    *,
    device: str = "cpu",
    dtype: str = "float64",
    promoted: set[str] | list[str] | tuple[str, ...] = (),
    example_batch_shape: dict[str, str] | str | None = None,
    dynamic_batch: bool | None = None,
    derivatives: Sequence[str] = (),
    renames: dict[str, dict[str, str]] | None = None,
    pre: Sequence[str] = (),
    additional_args: tuple[str, ...] = (),
    load: Sequence[str] = (),
    jobs: int = 1,
    progress_cb: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Compile ``[Models/model_name]`` of ``hit_path`` into the artifact folder ``output_dir``.

    ``promoted``: parameters made graph inputs (``neml2-compile -p``); ``derivatives``:
    ``OUT:IN`` pairs (``-d``); ``renames``: ``{"inputs" | "outputs" | "parameters": {old: new}}``;
    ``pre``: HIT snippets placed before the file; ``additional_args``: HIT command-line
    overrides; ``load``: user extensions imported first. Returns the artifact's metadata. A bad
    request raises :class:`~neml2.aoti.compile.CompileError` (a ``ValueError``).
    """
    pairs = _rename_pairs(renames)
    return compile_model(
        hit_path,
        model=model_name,
        artifact_dir=output_dir,
        devices=(device,),
        dtype=dtype,
        jobs=jobs,
        stub=False,
        promote=sorted(promoted),
        derivatives=list(derivatives),
        example_batch_shape=_batch_spec(example_batch_shape),
        dynamic_batch=dynamic_batch,
        rename_inputs=pairs["inputs"],
        rename_outputs=pairs["outputs"],
        rename_parameters=pairs["parameters"],
        overrides=list(additional_args),
        pre=list(pre),
        load=list(load),
        progress=progress_cb,
    )
