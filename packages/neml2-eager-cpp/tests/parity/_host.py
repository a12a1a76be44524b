"""``HostRoute``: a C++ route's model, run by the ``route_host`` process, behind the Python
:class:`neml2.models.RouteModel` protocol.

``route_host`` (``tests/cpp/route_host.cpp``, path in ``$NEML2_ROUTE_HOST``) holds one model of
cpp-aoti, cpp-dispatch or cpp-eager as a ``neml2::aoti::RouteModel`` and answers one request per
line; tensors cross as ``torch.save`` files of flat ``{name: tensor}`` dicts (Jacobian blocks keyed
``"<out> <in>"``). Outputs come back as the ``output_spec`` wrappers (declared sub-batch axes
kept), Jacobian and parameter blocks as tensors, parameters by their public names (``model.E``),
as ``AOTIModel`` returns them. Host errors become ``neml2.solvers.ConvergenceError``,
``neml2.aoti.FatalError`` or ``RuntimeError``, with the host's message.

    with HostRoute("cpp-aoti", [artifact_folder], dtype="float64") as m:
        y = m.value({"strain": strain})
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import torch
from torch.jit._pickle import restore_type_tag

import neml2.tensors as _tensors
from neml2.aoti import FatalError
from neml2.solvers import ConvergenceError
from neml2.tensors import TensorWrapper

__all__ = ["HostRoute", "host_path"]

ROUTES = ("cpp-aoti", "cpp-dispatch", "cpp-eager")


def host_path() -> Path | None:
    """The ``route_host`` executable named by ``$NEML2_ROUTE_HOST`` (None when unset)."""
    env = os.environ.get("NEML2_ROUTE_HOST")
    return Path(env) if env else None


def _unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            out.append("\n" if text[i + 1] == "n" else text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _raw(value: Any) -> torch.Tensor:
    data = value.data if isinstance(value, TensorWrapper) else value
    if not isinstance(data, torch.Tensor):
        raise TypeError(f"expected a torch.Tensor or a neml2 tensor, got {type(value).__name__}")
    return data


def _type(name: str) -> type[TensorWrapper]:
    cls = getattr(_tensors, name, None)
    if not (isinstance(cls, type) and issubclass(cls, TensorWrapper)):
        raise RuntimeError(f"route_host reported variable type {name!r}, not a neml2 tensor type")
    return cls


class HostRoute:
    """One model of a C++ route in a ``route_host`` process (see the module docstring).

    ``args``: ``[artifact folder]`` for cpp-aoti, ``[stub, model name, chunk rows]`` for
    cpp-dispatch, ``[input file, model name]`` for cpp-eager.
    """

    def __init__(
        self,
        route: str,
        args: Sequence[str | os.PathLike[str]],
        dtype: str = "float64",
        host: str | os.PathLike[str] | None = None,
    ) -> None:
        if route not in ROUTES:
            raise ValueError(f"route must be one of {ROUTES}, got {route!r}")
        exe = Path(host) if host is not None else host_path()
        if exe is None:
            raise RuntimeError("NEML2_ROUTE_HOST is not set (the route_host executable)")
        self.route = route
        self._tmp = tempfile.TemporaryDirectory(prefix="neml2-route-")
        self._count = 0
        env = dict(os.environ)
        if sys.prefix != sys.base_prefix:  # cpp-eager's embedded interpreter: this environment
            env["VIRTUAL_ENV"] = sys.prefix
        self._proc: subprocess.Popen[str] | None = subprocess.Popen(
            [str(exe), route, *(str(a) for a in args), dtype],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            self._reply()  # "ready", or the load error
            self._info: dict[str, Any] = json.loads(self._request("info"))
        except BaseException:
            self.close()
            raise
        info = self._info
        self._input_spec = {
            n: _type(t) for n, t in zip(info["input_names"], info["input_types"], strict=True)
        }
        self._output_spec = {
            n: _type(t) for n, t in zip(info["output_names"], info["output_types"], strict=True)
        }
        self._out_sub = {
            n: len(s)
            for n, s in zip(info["output_names"], info["output_sub_batch_shapes"], strict=True)
        }
        self.dtype: torch.dtype = getattr(torch, info["dtype"])
        self.device = torch.device(info["device"])

    # ------------------------------------------------------------------ process
    def close(self) -> None:
        """Stop the host (idempotent)."""
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                if proc.poll() is None and proc.stdin is not None:
                    proc.stdin.write("quit\n")
                    proc.stdin.flush()
                proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
        self._tmp.cleanup()

    def __enter__(self) -> HostRoute:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_proc", None) is not None:
            self.close()

    def _pipes(self) -> tuple[IO[str], IO[str]]:
        proc = self._proc
        if proc is None or proc.stdin is None or proc.stdout is None:
            raise RuntimeError(f"route_host ({self.route}) is closed")
        return proc.stdin, proc.stdout

    def _reply(self) -> str:
        _, stdout = self._pipes()
        line = stdout.readline()
        if not line:
            code = self._proc.wait() if self._proc is not None else None
            raise RuntimeError(f"route_host ({self.route}) exited (status {code}) without a reply")
        word, _, rest = line.rstrip("\n").partition(" ")
        if word in ("ok", "ready"):
            return rest
        if word == "error":
            kind, _, message = rest.partition(" ")
            message = _unescape(message)
            if kind == "ConvergenceError":
                raise ConvergenceError(message)
            if kind == "FatalError":
                raise FatalError(message)
            raise RuntimeError(message)
        raise RuntimeError(f"route_host ({self.route}): unexpected reply {line!r}")

    def _request(self, *words: str) -> str:
        stdin, _ = self._pipes()
        stdin.write(" ".join(words) + "\n")
        stdin.flush()
        return self._reply()

    def _path(self) -> str:
        self._count += 1
        return str(Path(self._tmp.name) / f"t{self._count}.pt")

    def _send(self, values: Mapping[str, Any]) -> str:
        path = self._path()
        torch.save({n: _raw(v) for n, v in values.items()}, path)
        return path

    @staticmethod
    def _load(path: str) -> dict[str, torch.Tensor]:
        # torch::pickle_save tags the dict's type with torch.jit._pickle.restore_type_tag
        with torch.serialization.safe_globals([restore_type_tag]):
            data = torch.load(path, weights_only=True)
        os.unlink(path)
        return dict(data)

    def _blocks(self, path: str) -> dict[str, dict[str, torch.Tensor]]:
        blocks: dict[str, dict[str, torch.Tensor]] = {}
        for key, value in self._load(path).items():
            out, _, var = key.partition(" ")
            blocks.setdefault(out, {})[var] = value
        return blocks

    def _wrap(self, values: Mapping[str, torch.Tensor]) -> dict[str, Any]:
        return {
            n: self._output_spec[n]._wrap(y, self._out_sub[n]) if n in self._output_spec else y
            for n, y in values.items()
        }

    def _overrides(self, param_overrides: Mapping[str, Any] | None) -> list[str]:
        return [self._send(param_overrides)] if param_overrides else []

    # ------------------------------------------------------------------ RouteModel
    @property
    def input_spec(self) -> Mapping[str, Any]:
        """Input name → neml2 tensor type, in call order."""
        return self._input_spec

    @property
    def output_spec(self) -> Mapping[str, Any]:
        """Output name → neml2 tensor type."""
        return self._output_spec

    @property
    def info(self) -> dict[str, Any]:
        """The host's ``info`` reply (names, types, shapes, parameters, device, dtype)."""
        return self._info

    def __call__(self, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Evaluate with the inputs in ``input_spec`` order; a tuple of typed outputs."""
        if kwargs:
            raise TypeError(f"HostRoute takes no keyword arguments, got {sorted(kwargs)}")
        if len(args) != len(self._input_spec):
            raise TypeError(f"expected {len(self._input_spec)} input(s), got {len(args)}")
        y = self.call_by_name(dict(zip(self._input_spec, args, strict=True)))
        return tuple(y[n] for n in self._output_spec if n in y)

    def call_by_name(
        self, state: Mapping[str, Any], param_overrides: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """``{output: wrapper}`` from ``{input: value}``."""
        y = self._path()
        self._request("forward", self._send(state), y, *self._overrides(param_overrides))
        return self._wrap(self._load(y))

    def value(
        self, state: Mapping[str, Any], param_overrides: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """Same as :meth:`call_by_name`."""
        return self.call_by_name(state, param_overrides)

    def jvp(
        self,
        inputs: Mapping[str, Any],
        tangents: Mapping[str, Any],
        param_overrides: Mapping[str, Any] | None = None,
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """``(outputs, {output: directional derivative})``, both typed."""
        y, dy = self._path(), self._path()
        x, t = self._send(inputs), self._send(tangents)
        self._request("jvp", x, t, y, dy, *self._overrides(param_overrides))
        return self._wrap(self._load(y)), self._wrap(self._load(dy))

    def jacobian(
        self, inputs: Mapping[str, Any], param_overrides: Mapping[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """``(outputs, J)`` with ``J[out][in]`` a tensor."""
        y, J = self._path(), self._path()
        self._request("jacobian", self._send(inputs), y, J, *self._overrides(param_overrides))
        return self._wrap(self._load(y)), dict(self._blocks(J))

    def param_jacobian(
        self, inputs: Mapping[str, Any], param_overrides: Mapping[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, torch.Tensor]]]:
        """``(outputs, P)`` with ``P[out][parameter]`` a tensor."""
        y, P = self._path(), self._path()
        x = self._send(inputs)
        self._request("param_jacobian", x, y, P, *self._overrides(param_overrides))
        return self._wrap(self._load(y)), self._blocks(P)

    def param_vjp(
        self,
        inputs: Mapping[str, Any],
        cotangents: Mapping[str, Any],
        param_overrides: Mapping[str, Any] | None = None,
    ) -> dict[str, torch.Tensor]:
        """``Σ_batch <cotangent, d output / d parameter>`` per parameter."""
        g = self._path()
        x, c = self._send(inputs), self._send(cotangents)
        self._request("param_vjp", x, c, g, *self._overrides(param_overrides))
        return self._load(g)

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, torch.Tensor]]:
        """``(public name, tensor)`` of every parameter (copies of the host's values)."""
        path = self._path()
        self._request("named_parameters", path)
        for name, value in self._load(path).items():
            yield (f"{prefix}.{name}" if prefix else name), value

    def parameter_base_shapes(self) -> dict[str, tuple[int, ...]]:
        """Public parameter name → base shape."""
        return {n: tuple(s) for n, s in self._info["parameter_base_shapes"].items()}

    def set_parameter(self, name: str, value: Any) -> None:
        """Replace a parameter by its public name (typed wrappers are unwrapped; no cast)."""
        data = (
            value
            if isinstance(value, torch.Tensor | TensorWrapper)
            else torch.as_tensor(value, dtype=self.dtype, device=self.device)
        )
        self._request("set_parameter", name, self._send({name: data}))
