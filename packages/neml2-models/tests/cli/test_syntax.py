"""neml2-syntax: every registered type with its options (JSON records of
``docs/guide/hit_files.md``, "Types and options"), filters, the --server line protocol and its
error responses."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from neml2._registry import registry
from neml2.cli.syntax import handle_request, main, serve

CATALOG = json.loads((Path(__file__).parent.parent / "data" / "catalog.json").read_text())


def _dump(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, object]]:
    assert main(["--json", "-", *args]) == 0
    recs: list[dict[str, object]] = json.loads(capsys.readouterr().out)
    return recs


def test_lists_every_registered_type(capsys: pytest.CaptureFixture[str]) -> None:
    recs = _dump(capsys)
    got = {(r["section"], r["type"]) for r in recs}
    assert got == {(s, n) for s, n, _ in registry.items()}
    assert [r["type"] for r in recs] == sorted(r["type"] for r in recs)  # type: ignore[type-var]
    for r in recs:
        assert list(r) == ["type", "section", "doc", "source_path", "class_name", "options"]
        assert r["class_name"] == ""
        cls = registry.types(str(r["section"]))[str(r["type"])]
        schema = getattr(cls, "hit", None)
        names = [o["name"] for o in r["options"]]  # type: ignore[attr-defined]
        assert names == ([] if schema is None else schema.option_names())
        for o in r["options"]:  # type: ignore[attr-defined]
            assert list(o) == ["name", "doc", "ftype", "required", "type", "value"]
            assert o["ftype"] in ("INPUT", "OUTPUT", "PARAMETER", "NONE")


def test_driver_options_match_catalog(capsys: pytest.CaptureFixture[str]) -> None:
    recs = {r["type"]: r for r in _dump(capsys, "--section", "Drivers")}
    assert set(recs) == {"TransientDriver", "TransientRegression", "Verification"}
    for entry in CATALOG:
        if entry["section"] != "Drivers":
            continue
        opts = {o["name"]: o for o in recs[entry["type"]]["options"]}  # type: ignore[attr-defined]
        assert list(opts) == [o["key"] for o in entry["options"]]
        for o in entry["options"]:
            assert opts[o["key"]]["required"] == o["required"], o["key"]
            assert opts[o["key"]]["type"] == o["type"], o["key"]
            assert opts[o["key"]]["value"] == o["default"], o["key"]


def test_default_file_summary_and_type(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["--summary", "--section", "Solvers"]) == 0
    recs = json.loads((tmp_path / "syntax.json").read_text())
    assert {r["type"] for r in recs} == set(registry.types("Solvers"))
    assert all("options" not in r for r in recs)
    (newton,) = _dump(capsys, "--type", "Newton")
    assert newton["section"] == "Solvers"
    assert newton["source_path"].startswith("neml2/solvers/")  # type: ignore[attr-defined]
    opts = {o["name"]: o for o in newton["options"]}  # type: ignore[attr-defined]
    assert opts["max_its"] == {**opts["max_its"], "type": "int", "value": "25", "required": False}


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["--type", "NoSuchType"], "Error: --type: 'NoSuchType' is not a registered type"),
        (["--section", "Nope"], "Error: --section: no types registered in section 'Nope'"),
        (["--server", "--summary"], "Error: --server cannot be combined with --summary"),
        (["--server", "--json", "-"], "Error: --server cannot be combined with --json"),
        (["stray"], "Error: unrecognised argument(s): stray"),
    ],
)
def test_errors(capsys: pytest.CaptureFixture[str], args: list[str], match: str) -> None:
    assert main(args) == 1
    out = capsys.readouterr()
    assert out.err.startswith(match)
    assert out.out == ""


def test_server_protocol(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    requests = [
        {"id": 1, "method": "list_sections"},
        {"id": 2, "method": "list_types", "section": "Drivers"},
        {"id": "three", "method": "get_options", "params": {"type": "TransientRegression"}},
        {"id": 4, "method": "list_types"},
    ]
    text = "\n".join(json.dumps(r) for r in requests) + "\n\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert main(["--server"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4
    r1, r2, r3, r4 = (json.loads(ln) for ln in lines)
    assert r1 == {"id": 1, "result": registry.sections()}
    assert r2 == {"id": 2, "result": ["TransientDriver", "TransientRegression", "Verification"]}
    assert r3["id"] == "three"
    assert [o["name"] for o in r3["result"]] == ["driver", "reference", "rtol", "atol"]
    assert r4["result"] == sorted({n for _, n, _ in registry.items()})


@pytest.mark.parametrize(
    ("line", "error", "detail"),
    [
        ("{not json", {"id": None, "error": "parse error"}, "invalid JSON"),
        ("[1, 2]", {"id": None, "error": "invalid request"}, "expected a JSON object, got list"),
        ('{"id": 5, "method": "nope"}', {"id": 5, "error": "unknown method"}, "'nope'"),
        ('{"id": 6}', {"id": 6, "error": "unknown method"}, "None"),
        (
            '{"id": 7, "method": "get_options"}',
            {"id": 7, "error": "invalid params"},
            "needs a string 'type'",
        ),
        (
            '{"id": 8, "method": "get_options", "type": "Zork"}',
            {"id": 8, "error": "invalid params"},
            "unknown type 'Zork'",
        ),
        (
            '{"id": 9, "method": "list_types", "section": "Zork"}',
            {"id": 9, "error": "invalid params"},
            "unknown section 'Zork'",
        ),
        (
            '{"id": 10, "method": "list_types", "params": 3}',
            {"id": 10, "error": "invalid params"},
            "'params' must be a JSON object",
        ),
    ],
)
def test_server_errors(line: str, error: dict[str, object], detail: str) -> None:
    resp = handle_request(line)
    assert {k: resp[k] for k in ("id", "error")} == error
    assert detail in resp["detail"]
    out = io.StringIO()
    serve(io.StringIO(line + "\n"), out)
    assert json.loads(out.getvalue()) == resp


def test_closed_pipe_ends_quietly() -> None:
    """``neml2-syntax --json - | head``: the reader leaves early; no error message, status 141
    (128 + SIGPIPE) as for other command-line tools."""
    import subprocess
    import sys

    p = subprocess.Popen(
        [sys.executable, "-m", "neml2.cli.syntax", "--json", "-"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert p.stdout is not None and p.stderr is not None
    assert p.stdout.read(64).startswith(b"[")
    p.stdout.close()
    err = p.stderr.read()
    assert p.wait(timeout=120) == 141
    assert err == b""
