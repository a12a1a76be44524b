"""Outputs are written atomically, and unwritable targets are found before the run.

A process killed while writing ``neml2-run --csv``/``--plot`` or a driver's ``save_as`` leaves
the previous file as it was (the new content goes to a temporary file in the same directory and
replaces the target in one rename). A target that cannot be written is an error naming the
option and the file before the first step."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from driver_scenario import make, write_case
from narrow import narrow

from neml2.cli.run import main
from neml2.drivers import TransientDriver
from neml2.factory import load_input
from neml2.outputs import atomic_output, check_writable

#: --load module: SIGKILL the process after three CSV rows (flushed: a plain open() would leave
#: a truncated file in place of the old one)
KILL_IN_CSV = """
import csv, os, signal
_real = csv.writer
class _Killer:
    def __init__(self, fh, *a, **k):
        self._w, self._fh, self._n = _real(fh, *a, **k), fh, 0
    def writerow(self, row):
        self._w.writerow(row)
        self._n += 1
        if self._n == 3:
            self._fh.flush()
            os.kill(os.getpid(), signal.SIGKILL)
csv.writer = _Killer
"""

#: --load module: SIGKILL the process in the middle of the driver's torch.save
KILL_IN_SAVE = """
import os, signal, torch
def _save(obj, f, *a, **k):
    f.write(b"PARTIAL")
    f.flush()
    os.kill(os.getpid(), signal.SIGKILL)
torch.save = _save
"""

OLD = "the previous result\n"


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "neml2.cli.run", *args],
        cwd=cwd, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def _leftovers(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir() if p.name.endswith((".partial", ".probe")))


def test_killed_csv_write_keeps_the_old_file(tmp_path: Path) -> None:
    path = write_case(tmp_path, make(nsteps=8, batch=2))
    (tmp_path / "kill.py").write_text(KILL_IN_CSV)
    out = tmp_path / "out.csv"
    out.write_text(OLD)
    r = _run([path, "driver", "--csv", str(out), "--load", str(tmp_path / "kill.py")], tmp_path)
    assert r.returncode == -signal.SIGKILL, r.stderr
    assert out.read_text() == OLD
    r = _run([path, "driver", "--csv", str(out)], tmp_path)
    assert r.returncode == 0, r.stderr
    lines = out.read_text().splitlines()
    assert lines[0].startswith("step,batch,") and len(lines) == 1 + 8 * 2


def test_killed_save_as_keeps_the_old_file(tmp_path: Path) -> None:
    path = write_case(tmp_path, make(nsteps=4, batch=2))
    (tmp_path / "kill.py").write_text(KILL_IN_SAVE)
    out = tmp_path / "res.pt"
    torch.save({"old": torch.ones(2)}, out)
    override = f"Drivers/driver/save_as:={out}"
    r = _run([path, "driver", override, "--load", str(tmp_path / "kill.py")], tmp_path)
    assert r.returncode == -signal.SIGKILL, r.stderr
    assert torch.equal(torch.load(out, weights_only=True)["old"], torch.ones(2))


def test_unwritable_targets_are_named_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_case(tmp_path, make(nsteps=4, batch=2))
    missing = tmp_path / "no" / "such" / "dir"
    assert main([path, "driver", "--csv", str(missing / "h.csv")]) == 1
    err = capsys.readouterr().err
    assert err == f"Error: --csv: the directory of '{missing / 'h.csv'}' does not exist\n"
    assert main([path, "driver", "--plot", str(tmp_path)]) == 1
    assert f"--plot: '{tmp_path}' is a directory, not a file" in capsys.readouterr().err
    (tmp_path / "file").write_text("")
    assert main([path, "driver", "--csv", str(tmp_path / "file" / "h.csv")]) == 1
    assert "h.csv' is not a directory" in capsys.readouterr().err  # a file in the way
    # save_as: refused before the first step (the driver records nothing)
    override = f"Drivers/driver/save_as:={missing / 'r.pt'}"
    driver = narrow(
        load_input(path, additional_args=[override]).get_driver("driver"), TransientDriver
    )
    with pytest.raises(FileNotFoundError, match=r"\[Drivers/driver\] option 'save_as': the dir"):
        driver.run()
    assert driver.result() == {}


def test_directory_that_refuses_files() -> None:
    """/sys refuses new files also to root (a read-only directory would not, under root)."""
    with pytest.raises(PermissionError, match=r"--csv: cannot write '/sys/h.csv' \(directory"):
        check_writable("/sys/h.csv", "--csv")


def test_atomic_output_replaces_whole_or_not_at_all(tmp_path: Path) -> None:
    out = tmp_path / "f.txt"
    out.write_text(OLD)
    out.chmod(0o640)
    with pytest.raises(RuntimeError, match="interrupted"), atomic_output(out) as fh:
        fh.write("half of the new")
        raise RuntimeError("interrupted")
    assert out.read_text() == OLD and _leftovers(tmp_path) == []
    with atomic_output(out) as fh:
        fh.write("new\n")
    assert out.read_text() == "new\n" and _leftovers(tmp_path) == []
    assert out.stat().st_mode & 0o777 == 0o640  # the replaced file's permissions


def test_atomic_output_writes_through_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real.csv"
    real.write_text(OLD)
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    with atomic_output(link, "w", newline="") as fh:
        fh.write("a,b\n")
    assert link.is_symlink() and real.read_text() == "a,b\n"


def test_new_files_get_the_umask_permissions(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        with atomic_output(tmp_path / "n.bin", "wb") as fh:
            fh.write(b"x")
    finally:
        os.umask(old)
    assert (tmp_path / "n.bin").stat().st_mode & 0o777 == 0o640
