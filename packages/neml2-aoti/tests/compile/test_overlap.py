"""``overlapped_objects``: a graph's wrapper object compiles during its kernel object, every other
build waits for it, its errors surface with their type, and Inductor's builder is restored."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from torch._inductor import cpp_builder
from torch._inductor.exc import CppCompileError

from neml2.aoti.compile._overlap import overlapped_objects


class FakeBuilder:
    def __init__(self, target: str) -> None:
        self.target = target

    def get_target_file_path(self) -> str:
        return f"/cache/key/{self.target}"


def _fake_build(
    log: list[str], hooks: dict[str, Callable[[], None]]
) -> Callable[[FakeBuilder], None]:
    def build(self: FakeBuilder) -> None:
        log.append(f"start {self.target}")
        hooks.get(self.target, lambda: None)()
        log.append(f"end {self.target}")

    return build


def _inductor_sequence() -> None:
    build = cpp_builder.CppBuilder.build
    for target in ("abc.wrapper.o", "def.kernel.o", "abc/w.weights.o", "abc.wrapper.so"):
        build(FakeBuilder(target))  # type: ignore[arg-type]


def test_wrapper_compiles_during_kernel_and_link_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    log: list[str] = []
    kernel_running = threading.Event()

    def wrapper() -> None:  # finishes only once the kernel's compile has started
        assert kernel_running.wait(timeout=30), "the kernel did not compile during the wrapper"

    monkeypatch.setattr(
        cpp_builder.CppBuilder,
        "build",
        _fake_build(log, {"abc.wrapper.o": wrapper, "def.kernel.o": kernel_running.set}),
    )
    original = cpp_builder.CppBuilder.build
    with overlapped_objects():
        _inductor_sequence()
    assert cpp_builder.CppBuilder.build is original
    assert log.index("start def.kernel.o") < log.index("end abc.wrapper.o")
    assert log.index("end abc.wrapper.o") < log.index("start abc/w.weights.o")
    assert log[-2:] == ["start abc.wrapper.so", "end abc.wrapper.so"]


def test_without_the_context_builds_run_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    log: list[str] = []
    monkeypatch.setattr(cpp_builder.CppBuilder, "build", _fake_build(log, {}))
    _inductor_sequence()
    assert log[:4] == ["start abc.wrapper.o", "end abc.wrapper.o", "start def.kernel.o",
                       "end def.kernel.o"]  # fmt: skip


def test_wrapper_error_surfaces_with_its_type(monkeypatch: pytest.MonkeyPatch) -> None:
    log: list[str] = []

    def fail() -> None:
        raise CppCompileError(["g++", "abc.wrapper.cpp"], "internal compiler error")

    monkeypatch.setattr(cpp_builder.CppBuilder, "build", _fake_build(log, {"abc.wrapper.o": fail}))
    original = cpp_builder.CppBuilder.build
    with pytest.raises(CppCompileError, match="internal compiler error"), overlapped_objects():
        _inductor_sequence()
    assert cpp_builder.CppBuilder.build is original
    assert "start abc/w.weights.o" not in log  # nothing is linked without the wrapper


def test_kernel_error_wins_and_the_wrapper_is_awaited(monkeypatch: pytest.MonkeyPatch) -> None:
    log: list[str] = []
    release = threading.Event()

    def slow_wrapper() -> None:
        release.wait(timeout=30)

    def fail() -> None:
        release.set()
        raise CppCompileError(["g++", "def.kernel.cpp"], "kernel failed")

    hooks: dict[str, Any] = {"abc.wrapper.o": slow_wrapper, "def.kernel.o": fail}
    monkeypatch.setattr(cpp_builder.CppBuilder, "build", _fake_build(log, hooks))
    with pytest.raises(CppCompileError, match="kernel failed"), overlapped_objects():
        _inductor_sequence()
    assert "end abc.wrapper.o" in log  # joined before the error left the context
