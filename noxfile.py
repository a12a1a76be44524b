"""Developer and CI sessions of the neml2 monorepo (``nox -l`` lists them).

Most sessions run in the dev venv ``.venv`` that ``setup.sh`` creates (``venv_backend="none"``,
tools called as ``sys.executable -m ...``), so torch is installed once. ``deploy``, ``typed``,
``cpp`` and ``compat`` need fresh environments: they create them under ``.nox/`` and install the
wheels ``build`` left in ``dist/``. Those venvs link the one pinned torch of ``.nox/torch-base``
instead of each installing its own copy (about 0.9 GB each), so a CI run fits a small disk.
"""

from __future__ import annotations

import csv
import importlib.metadata
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import nox
import tomllib
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import parse_wheel_filename
from packaging.version import Version

ROOT = Path(__file__).resolve().parent
DIST = ROOT / "dist"
CONSTRAINTS = ROOT / "constraints" / "dev.txt"
TORCH = "torch==2.13.0"
#: pkg-config from PyPI, for the cpp session's pkg-config host (not in the dev venv: it would
#: shadow the system pkg-config there)
PKGCONF = "pkgconf==3.0.7.post0"

# distribution -> (package folder, import sub-package under neml2/)
PACKAGES: dict[str, tuple[str, str]] = {
    "neml2-tensors": ("packages/neml2-tensors", "tensors"),
    "neml2-hit": ("packages/neml2-hit", "hit"),
    "neml2-models": ("packages/neml2-models", "models"),
    "neml2-aoti": ("packages/neml2-aoti", "aoti"),
    "neml2-eager-cpp": ("packages/neml2-eager-cpp", "eager"),
}
DTYPE_INDEPENDENT = {"neml2-hit"}
COMPILED = {"neml2-aoti", "neml2-eager-cpp"}  # built against the installed torch: pinned to it
#: Sonames (globs) ``auditwheel repair`` leaves out of each compiled wheel: torch's libraries come
#: from the torch wheel at run time (``$ORIGIN``-relative RUNPATHs), the MPI plugin
#: ``libneml2_mpi.so`` links the host's MPI, and neml2-eager-cpp links neml2-aoti's libneml2.so
NOT_GRAFTED: dict[str, tuple[str, ...]] = {
    "neml2-aoti": ("libtorch*.so", "libc10*.so", "libmpi*.so*"),
    "neml2-eager-cpp": ("libtorch*.so", "libc10*.so", "libneml2.so"),
}
NAMESPACE_OWNER = "neml2-models"
#: The shared scenario inputs of every package's tests, the C++ tests and the benchmarks
SCENARIOS = ROOT / "scenarios"
DEMO_INPUT = ROOT / "examples" / "viscoplasticity" / "chaboche.i"
DEMO_OUTPUT = ROOT / "demo-output"

nox.options.default_venv_backend = "none"
nox.options.sessions = ["tests", "lint", "typecheck"]
nox.options.error_on_missing_interpreters = True


def _python(session: nox.Session, *args: str) -> None:
    """Run the dev venv's interpreter (the one running nox) with args."""
    session.run(sys.executable, *args, external=True)


def _pytest(session: nox.Session, name: str, device: str, dtype: str) -> None:
    """One package's pytest at one (device, dtype) point of the matrix."""
    tests = ROOT / PACKAGES[name][0] / "tests"
    if not any(tests.glob("**/test_*.py")):
        session.log(f"{name}: no tests yet")
        return
    session.log(f"{name}: pytest --device {device} --dtype {dtype}")
    args = ["-m", "pytest", str(tests.relative_to(ROOT)), "-q", "-n", "2"]
    _python(session, *args, "--device", device, "--dtype", dtype, *session.posargs)


def _matrix(session: nox.Session, device: str, dtypes: list[str]) -> None:
    """Run every package over device x dtypes; fail at the end, naming every failed point."""
    failed = []
    for dtype in dtypes:
        for name in PACKAGES:
            if name in DTYPE_INDEPENDENT and dtype != dtypes[0]:
                continue
            try:
                _pytest(session, name, device, dtype)
            except nox.command.CommandFailed:
                failed.append(f"{name} ({device}, {dtype})")
    if failed:
        session.error(f"tests failed: {', '.join(failed)}")


TEST_ARTIFACTS = ROOT / ".nox" / "test-artifacts"
COMPILE_CACHE = ROOT / ".nox" / "compile-cache"


def _scenario_artifacts(session: nox.Session, dtypes: list[str]) -> None:
    """Compile the shared test scenarios once and export ``NEML2_TEST_ARTIFACTS`` to them.

    A caller-set ``NEML2_TEST_ARTIFACTS`` is used as is. Otherwise the scenarios are compiled
    (2 jobs) into ``.nox/test-artifacts`` through the neml2-compile cache in ``.nox/compile-cache``
    (a re-run on the same clone is a copy); pytest, ctest and deploy then load the same graphs.
    """
    given = os.environ.get("NEML2_TEST_ARTIFACTS")
    if given:
        session.env["NEML2_TEST_ARTIFACTS"] = given
        return
    session.env.setdefault("NEML2_COMPILE_CACHE", str(COMPILE_CACHE))
    build = ["-m", "neml2.aoti.compile.testing", str(TEST_ARTIFACTS), "--dtypes", *dtypes]
    session.run(sys.executable, *build, "-j", "2", external=True)
    session.env["NEML2_TEST_ARTIFACTS"] = str(TEST_ARTIFACTS)


@nox.session(python=False)
def tests(session: nox.Session) -> None:
    """Every package's pytest over cpu x {float64, float32} (neml2-hit once)."""
    _scenario_artifacts(session, ["float64", "float32"])
    _matrix(session, "cpu", ["float64", "float32"])


ROBUSTNESS_TESTS = [
    "packages/neml2-hit/tests/test_fuzz.py",  # random and mutated HIT text
    "packages/neml2-models/tests/framework/test_load_fuzz.py",  # mutated inputs through the factory
    "packages/neml2-models/tests/cli/test_atomic_outputs.py",  # processes killed while writing
    "packages/neml2-aoti/tests/runtime/test_model_errors.py",  # damaged and mismatched artifacts
]


@nox.session(python=False)
def robustness(session: nox.Session) -> None:
    """Hostile input at full strength: the HIT fuzz (10,500 examples), the load-layer fuzz
    (1,500 mutated example inputs), outputs of killed processes and damaged artifacts."""
    _scenario_artifacts(session, ["float64"])
    session.env["CI"] = "true"  # the HIT fuzz's full example count
    session.env.setdefault("NEML2_FUZZ_EXAMPLES", "1500")
    _python(session, "-m", "pytest", *ROBUSTNESS_TESTS, "-q", "-n", "2", "-p", "no:cacheprovider")


@nox.session(python=False, default=False)
def sweep(session: nox.Session) -> None:
    """Model cases of neml2-models' suite compiled and run through py-jit (at a batch of seven)
    and py-aoti (at batch shapes (), (0,), (1,), (7,)) against py-eager: one case per registered
    type the suite covers (set NEML2_ROUTE_SWEEP=all for every case). Slow, one compile per case:
    the tests session runs the samples of both sweep test modules."""
    session.env.setdefault("NEML2_ROUTE_SWEEP", "types")
    session.env.setdefault("NEML2_COMPILE_CACHE", str(COMPILE_CACHE))
    sweeps = [
        ROOT / PACKAGES["neml2-models"][0] / "tests" / "jit" / "test_jit_route_sweep.py",
        ROOT / PACKAGES["neml2-aoti"][0] / "tests" / "runtime" / "test_route_sweep.py",
    ]
    for tests in sweeps:  # one pytest per package: each suite has its own conftest and paths
        _python(session, "-m", "pytest", str(tests), "-n", "2", "-rs", *session.posargs)


@nox.session(python=False, default=False, tags=["gpu"])
def gpu(session: nox.Session) -> None:
    """The test matrix on cuda; fails (never skips) when no CUDA device is present."""
    probe = "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"
    if subprocess.run([sys.executable, "-c", probe], check=False).returncode != 0:
        session.error(
            "no CUDA device was found: the gpu session needs a GPU (torch.cuda.is_available() is False)"
        )
    session.env.setdefault("NEML2_COMPILE_CACHE", str(COMPILE_CACHE))
    _matrix(session, "cuda", ["float64", "float32"])


#: git pathspecs of the C++ sources that clang-format checks (``.clang-format`` at the root)
CPP_SOURCES = ("*.cpp", "*.cxx", "*.cc", "*.h", "*.hpp")


def _cpp_sources() -> list[str]:
    """The repository's C++ files, tracked or new but not ignored (never the gitignored build
    copies such as packages/neml2-aoti/src/neml2/include), relative to ROOT."""
    out = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard",
         "--", *CPP_SOURCES],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    return sorted({f for f in out.split("\0") if f and (ROOT / f).is_file()})


def _clang_format(session: nox.Session) -> str:
    """The dev venv's clang-format, at the version pinned in constraints/dev.txt (another version
    may format differently)."""
    pin = re.search(r"^clang-format==(\S+)", CONSTRAINTS.read_text(), re.MULTILINE)
    exe = Path(sys.executable).parent / "clang-format"
    found = shutil.which(str(exe)) or shutil.which("clang-format")
    version = ""
    if found:
        done = subprocess.run([found, "--version"], capture_output=True, text=True, check=False)
        version = done.stdout
    if not found or pin is None or f"version {pin.group(1)}" not in version:
        session.error(
            f"clang-format {pin.group(1) if pin else '(pin)'} is needed (found: "
            f"{version.strip() or 'none'}): pip install -c constraints/dev.txt clang-format"
        )
    return str(found)


@nox.session(python=False)
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check over the repository, clang-format --dry-run over its C++
    sources (``.clang-format``; ``nox -s format`` fixes both); the distributions use each other
    through public names only (``tools/layering.py``, and its tests); each package's LICENSE is a
    copy of the repository's."""
    _python(session, "-m", "ruff", "check", ".")
    _python(session, "-m", "ruff", "format", "--check", ".")
    sources = _cpp_sources()
    done = subprocess.run(
        [_clang_format(session), "--dry-run", "--Werror", *sources], cwd=ROOT, check=False
    )
    if done.returncode != 0:
        session.error(
            "C++ sources are not clang-formatted (see above); fix them with `nox -s format` "
            "(or `clang-format -i <files>`)"
        )
    session.log(f"clang-format: {len(sources)} C++ files formatted")
    _python(session, "tools/layering.py")
    _python(session, "-m", "pytest", "tools", "-q", "-p", "no:cacheprovider")
    problems = _license_copies()
    if problems:
        session.error("\n  ".join(["LICENSE copies out of date:", *problems]))


@nox.session(python=False, default=False, name="format")
def format_(session: nox.Session) -> None:
    """Apply the formatters that ``lint`` checks: ruff format (Python) and clang-format -i (the
    C++ sources, style in ``.clang-format``)."""
    _python(session, "-m", "ruff", "format", ".")
    sources = _cpp_sources()
    session.log(f"clang-format -i over {len(sources)} C++ files")
    subprocess.run([_clang_format(session), "-i", *sources], cwd=ROOT, check=True)


@nox.session(python=False)
def typecheck(session: nox.Session) -> None:
    """mypy over every package's sources, the benchmarks and noxfile, each test suite, then the
    documentation's Python (``docs/conf.py``, ``docs/_ext``, ``docs/tutorials``).

    Sources are checked by path (not ``-p neml2.<sub>``) so that every module of the ``neml2``
    namespace is covered, including neml2-models' top-level ones (factory, solvers, drivers, ...).
    Test suites are separate runs: they are not packages, so module names only need to be unique
    within one package's ``tests/``. Last, mypy's ``stubtest`` checks the generated stub of the
    pybind11 bindings against the built module.
    """
    sources = [f"{folder}/src" for folder, _ in PACKAGES.values()]
    _python(session, "-m", "mypy", *sources, "bench", "tools", "noxfile.py", *session.posargs)
    for folder, _ in PACKAGES.values():
        _python(session, "-m", "mypy", f"{folder}/tests", *session.posargs)
    # the documentation's configuration, extensions and tutorials (which import the calibration
    # example's module)
    docs_path = os.pathsep.join(["docs/_ext", "examples/calibration"])
    docs_sources = ["docs/conf.py", "docs/_ext", "docs/tutorials"]
    session.run(sys.executable, "-m", "mypy", *docs_sources, *session.posargs,
                env={"MYPYPATH": docs_path}, external=True)  # fmt: skip
    allowlist = ROOT / PACKAGES["neml2-aoti"][0] / "stubtest-allowlist.txt"
    _python(session, "-m", "mypy.stubtest", "neml2.aoti._aoti", "--allowlist", str(allowlist))


@nox.session(python=False)
def stubs(session: nox.Session) -> None:
    """Regenerate the shipped stub of the bindings (``neml2.aoti._aoti``) from the editable
    build: ``neml2-stub`` writes it next to the module, which is the source tree."""
    _python(session, "-m", "neml2.aoti.stubgen")


def _wheel(name: str) -> Path:
    wheels = sorted(DIST.glob(f"{name.replace('-', '_')}-*.whl"))
    if not wheels:
        raise FileNotFoundError(f"no {name} wheel in {DIST}; run `nox -s build` first")
    return wheels[-1]


def _license_copies() -> list[str]:
    """Problems of the per-package LICENSE copies: each must equal the repository's LICENSE."""
    text = (ROOT / "LICENSE").read_bytes()
    problems = []
    for folder, _ in PACKAGES.values():
        copy = ROOT / folder / "LICENSE"
        if not copy.is_file() or copy.is_symlink() or copy.read_bytes() != text:
            problems.append(
                f"{copy.relative_to(ROOT)}: not a copy of LICENSE (cp LICENSE {folder})"
            )
    return problems


def _torch_pin() -> str:
    """``torch==X.Y.*`` of the dev venv's torch: what the compiled wheels must require."""
    torch = Version(importlib.metadata.version("torch"))
    return f"torch=={torch.major}.{torch.minor}.*"


#: an absolute path in a pkg-config line (a wheel's .pc paths are relative to ${pcfiledir})
_ABSOLUTE = re.compile(r"^[^#]*(=|\s|-[IL]|-Wl,-rpath,)/")


def _check_wheel(name: str, wheel: Path) -> list[str]:
    """Problems of one wheel: namespace ownership, py.typed, C++ payload, license file, torch
    pin, manylinux tag and no grafted library of the compiled distributions."""
    sub = PACKAGES[name][1]
    archive = zipfile.ZipFile(wheel)
    files = set(archive.namelist())
    problems = []
    dist_info = next(f.split("/")[0] for f in files if f.endswith(".dist-info/METADATA"))
    license_file = f"{dist_info}/licenses/LICENSE"
    if license_file not in files:
        problems.append(f"{wheel.name}: {license_file} missing")
    elif archive.read(license_file) != (ROOT / "LICENSE").read_bytes():
        problems.append(f"{wheel.name}: {license_file} differs from the repository LICENSE")
    if name in COMPILED:
        requires = archive.read(f"{dist_info}/METADATA").decode().splitlines()
        if f"Requires-Dist: {_torch_pin()}" not in requires:
            problems.append(f"{wheel.name}: METADATA lacks Requires-Dist: {_torch_pin()}")
        tags = archive.read(f"{dist_info}/WHEEL").decode().splitlines()
        platforms = {t.platform for t in parse_wheel_filename(wheel.name)[3]}
        platforms |= {t.rsplit("-", 1)[-1] for t in tags if t.startswith("Tag: ")}
        if not all(p.startswith("manylinux") for p in platforms):
            problems.append(f"{wheel.name}: not manylinux-tagged ({', '.join(sorted(platforms))})")
        grafted = sorted({f.split("/")[0] for f in files if f.split("/")[0].endswith(".libs")})
        if grafted:
            problems.append(f"{wheel.name}: libraries grafted into {', '.join(grafted)}")
    owns_init = "neml2/__init__.py" in files
    if owns_init != (name == NAMESPACE_OWNER):
        problems.append(f"{wheel.name}: neml2/__init__.py {'present' if owns_init else 'missing'}")
    if f"neml2/{sub}/py.typed" not in files:
        problems.append(f"{wheel.name}: neml2/{sub}/py.typed missing")
    # neml2/py.typed marks neml2-models' top-level modules (factory, solvers, drivers, ...) as
    # typed: only the owner of neml2/__init__.py ships it, so no two wheels share the file
    owns_typed = "neml2/py.typed" in files
    if owns_typed != (name == NAMESPACE_OWNER):
        problems.append(f"{wheel.name}: neml2/py.typed {'present' if owns_typed else 'missing'}")
    expected = {
        "neml2-models": ["neml2/hash"],
        "neml2-aoti": [
            "neml2/lib/libneml2.so",
            "neml2/share/cmake/neml2/neml2Config.cmake",
            "neml2/include/neml2/csrc/aoti/Exception.h",
            "neml2/include/neml2/csrc/aoti/Model.h",
            "neml2/include/neml2/csrc/dispatchers/DispatchedModel.h",
            "neml2/aoti/_aoti.pyi",
            *(f"neml2/share/pkgconfig/{pc}.pc" for pc in ("neml2", "neml2-core", "neml2-torch")),
        ],
        "neml2-eager-cpp": [
            "neml2/lib/libneml2_eager.so",
            "neml2/share/cmake/neml2_eager/neml2_eagerConfig.cmake",
            "neml2/include/neml2/csrc/eager/python.h",
            "neml2/include/neml2/csrc/eager/Model.h",
            "neml2/include/neml2/csrc/eager/load_model.h",
            "neml2/include/neml2/neml2.h",
            "neml2/include/neml2/tensors/jit.h",
        ],
    }.get(name, [])
    problems += [f"{wheel.name}: {f} missing" for f in expected if f not in files]
    for pc in sorted(f for f in files if f.endswith(".pc")):
        absolute = [
            line for line in archive.read(pc).decode().splitlines() if _ABSOLUTE.search(line)
        ]
        problems += [f"{wheel.name}: {pc} has a build-machine path: {line}" for line in absolute]
    if name == "neml2-eager-cpp" and "neml2/lib/libneml2.so" in files:
        problems.append(f"{wheel.name}: bundles libneml2.so (it belongs to neml2-aoti)")
    return problems


def _repair(session: nox.Session, name: str) -> None:
    """Replace a compiled wheel of dist/ by its ``auditwheel repair``: linux_x86_64 -> manylinux.

    The tag is auditwheel's ``auto`` choice, the most compatible manylinux policy the wheel's
    versioned symbols allow once NOT_GRAFTED is excluded (``auditwheel show`` cannot exclude: it
    would judge torch's and the host MPI's libraries too). ``--patcher none`` fails rather than
    change an ELF file: nothing is grafted, and the RUNPATHs to ``torch/lib``, which point outside
    the wheel and which a grafting repair would drop, stay as built.
    """
    wheel = _wheel(name)
    excludes = [arg for soname in NOT_GRAFTED[name] for arg in ("--exclude", soname)]
    with tempfile.TemporaryDirectory(prefix="neml2-repair-") as tmp:
        try:
            _python(session, "-m", "auditwheel", "repair", "--plat", "auto", "--patcher", "none",
                    *excludes, "--wheel-dir", tmp, str(wheel))  # fmt: skip
        except nox.command.CommandFailed:
            session.error(
                f"auditwheel repair {wheel.name} failed; a traceback ending in NotImplementedError"
                " means it would graft a library: `auditwheel show` lists the wheel's external"
                " libraries (exclude the ones a user's environment provides in NOT_GRAFTED)"
            )
        (repaired,) = Path(tmp).glob("*.whl")
        wheel.unlink()
        shutil.move(repaired, DIST / repaired.name)


@nox.session(python=False)
def build(session: nox.Session) -> None:
    """Wheels of all five packages into dist/, the compiled ones retagged manylinux by
    ``auditwheel repair``; then check their namespace and py.typed layout, license files, torch
    pins and tags, and that each CHANGELOG records the version being built."""
    DIST.mkdir(exist_ok=True)
    for old in DIST.glob("neml2_*.whl"):
        old.unlink()
    for folder, _ in PACKAGES.values():
        _python(session, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(DIST), folder)
    for name in sorted(COMPILED):
        _repair(session, name)
    problems = _license_copies() + _changelog_problems()
    problems += [p for name in PACKAGES for p in _check_wheel(name, _wheel(name))]
    if problems:
        session.error("wheel layout problems:\n  " + "\n  ".join(problems))
    session.log(f"{len(PACKAGES)} wheels OK in {DIST}")


TORCH_BASE = ROOT / ".nox" / "torch-base"


def _site_packages(python: Path) -> Path:
    """The purelib site-packages folder of the interpreter ``python``."""
    out = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    return Path(out)


def _torch_base(session: nox.Session) -> Path:
    """Site-packages of ``.nox/torch-base``: the pinned torch and its dependencies, nothing else.

    Installed once and reused while it holds the pinned torch release.
    """
    python = TORCH_BASE / "bin" / "python"
    if python.exists():
        site = _site_packages(python)
        found = importlib.metadata.distributions(name="torch", path=[str(site)])
        if any(Version(d.version).public == TORCH.split("==")[1] for d in found):
            return site
    if TORCH_BASE.exists():
        shutil.rmtree(TORCH_BASE)
    _python(session, "-m", "venv", str(TORCH_BASE))
    session.run(str(python), "-m", "pip", "install", "-q", "-c", str(CONSTRAINTS), TORCH,
                external=True)  # fmt: skip
    return _site_packages(python)


def _link_site(source: Path, target: Path) -> None:
    """Symlink every entry of site-packages ``source`` that ``target`` lacks into ``target``.

    Symlinks keep the wheel layout, so C++ libraries still find ``torch/lib`` through their
    ``$ORIGIN``-relative rpaths, and pip sees the linked distributions as installed.
    """
    for entry in source.iterdir():
        if not (target / entry.name).exists() and entry.name != "__pycache__":
            (target / entry.name).symlink_to(entry)


def _fresh_venv(session: nox.Session, path: Path, *requirements: str) -> Path:
    """A new venv at path with torch (pinned, linked from ``.nox/torch-base``) and the given
    requirements installed under ``constraints/dev.txt``; returns its python."""
    base_site = _torch_base(session)
    if path.exists():
        shutil.rmtree(path)
    _python(session, "-m", "venv", str(path))
    python = path / "bin" / "python"
    _link_site(base_site, _site_packages(python))
    session.run(str(python), "-m", "pip", "install", "-q", "-c", str(CONSTRAINTS), TORCH,
                *requirements, external=True)  # fmt: skip
    return python


RUNTIME_TESTS = ROOT / PACKAGES["neml2-aoti"][0] / "tests" / "runtime"


@nox.session(python=False)
def deploy(session: nox.Session) -> None:
    """A venv with only torch + the neml2-aoti wheel runs prebuilt artifacts from Python.

    The dev venv compiles the elasticity, scalar-implicit and Chaboche scenarios (through the
    neml2-compile cache, or reusing ``$NEML2_TEST_ARTIFACTS``) and records py-eager reference
    values; the fresh venv then loads them with ``neml2.aoti.Model``, checks forward and jacobian
    to 1e-10 and a ConvergenceError, and proves neml2.models / neml2.hit / neml2.tensors are not
    importable; its ``neml2-compile`` names the missing ``[compile]`` extra in one line (exit
    status 2).
    ``libneml2.so`` needs no MPI or Python library (``readelf -d``), and the check also passes in
    a mount namespace where every MPI library of this machine is hidden.
    """
    work = ROOT / ".nox" / "deploy-work"
    _scenario_artifacts(session, ["float64"])
    _python(session, str(RUNTIME_TESTS / "deploy_reference.py"), str(work))
    python = _fresh_venv(session, ROOT / ".nox" / "deploy-env", str(_wheel("neml2-aoti")))
    check = [str(python), str(RUNTIME_TESTS / "deploy_check.py"), str(work / "reference.pt")]
    session.run(*check, external=True)
    _check_needed_libraries(session, _site_packages(python) / "neml2" / "lib" / "libneml2.so")
    session.run(*_without_mpi(check), external=True)
    session.log("the runtime wheel works with every MPI library hidden")
    _check_compile_needs_extra(session, python.with_name("neml2-compile"), work)


def _check_needed_libraries(session: nox.Session, library: Path) -> None:
    """``readelf -d``: the library's NEEDED entries name no MPI and no Python library."""
    dynamic = subprocess.run(
        ["readelf", "-d", str(library)], check=True, capture_output=True, text=True
    ).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
    bad = [n for n in needed if n.startswith(("libmpi", "libpython", "libopen-"))]
    if not needed or bad:
        session.error(f"{library.name} needs {bad or 'nothing?'} (NEEDED: {needed})")
    session.log(f"{library.name} NEEDED: {', '.join(needed)} (no MPI, no Python)")


def _without_mpi(command: list[str]) -> list[str]:
    """``command`` run in a new mount namespace in which every MPI library file of this machine
    (as ``ldconfig -p`` lists them) is covered by ``/dev/null``, after checking that none of
    them loads any more."""
    listing = subprocess.run(["ldconfig", "-p"], check=True, capture_output=True, text=True).stdout
    files = sorted(
        {str(Path(line.split(" => ")[-1]).resolve()) for line in listing.splitlines()
         if "libmpi" in line or "libopen-" in line}
    )  # fmt: skip
    if not files:
        raise RuntimeError("this machine has no MPI library to hide (ldconfig -p lists none)")
    loads = "import ctypes, sys; ctypes.CDLL(sys.argv[1])"
    script = (
        'for f in "$@"; do mount --bind /dev/null "$f" || exit 1; done; '
        f'for f in "$@"; do if python3 -c {shlex.quote(loads)} "$f" 2>/dev/null; then '
        'echo "$f still loads" >&2; exit 1; fi; done; '
        f"exec {' '.join(shlex.quote(c) for c in command)}"
    )
    # root may mount in a new namespace; other users map themselves to root in a user namespace
    flags = ["--mount"] if os.geteuid() == 0 else ["--mount", "--map-root-user"]
    return ["unshare", *flags, "sh", "-c", script, "hide-mpi", *files]


def _check_compile_needs_extra(session: nox.Session, script: Path, work: Path) -> None:
    """``neml2-compile`` of a runtime-only venv: one line naming the [compile] extra, exit 2.

    Lines before it are torch's own import warnings (torch without numpy warns on import).
    """
    expected = (
        'neml2-compile: needs the compile extra: pip install "neml2-aoti[compile]" '
        "(missing module neml2.models)"
    )
    model = str(SCENARIOS / "elasticity.i")
    for args in (["--help"], [model, "--model", "model", "--output-dir", str(work / "none")]):
        done = subprocess.run([str(script), *args], capture_output=True, text=True, check=False)
        last = done.stderr.splitlines()[-1:]
        ok = done.returncode == 2 and not done.stdout and last == [expected]
        if not ok or "Traceback" in done.stderr:
            session.error(
                f"neml2-compile {' '.join(args)} without the compile extra: exit "
                f"{done.returncode}, stdout {done.stdout!r}, stderr {done.stderr!r}"
            )
    session.log("neml2-compile without the compile extra: one line naming it, exit 2")


#: A user's script type-checked against the installed wheels (``typed`` session): every revealed
#: type is a real one (not Any) and the one error is the int passed as a path.
TYPED_USER_SCRIPT = """\
import neml2.eager
from neml2.aoti import Model
from neml2.drivers import TransientDriver
from neml2.factory import load_input
from neml2.hit import parse_text
from neml2.solvers import Newton
from neml2.tensors import SR2

reveal_type(load_input)
reveal_type(TransientDriver)
reveal_type(Newton)
reveal_type(SR2)
reveal_type(parse_text)
reveal_type(Model)
reveal_type(neml2.eager.cmake_prefix_path)
load_input(42)
"""


@nox.session(python=False)
def typed(session: nox.Session) -> None:
    """PEP 561: mypy type-checks a user's script against the five installed wheels.

    A fresh venv gets torch and every wheel of ``dist/``; the dev venv's mypy checks
    ``TYPED_USER_SCRIPT`` with that venv's site-packages (no repository configuration): no module
    is untyped or missing, no revealed type is Any, and the one error is the planted one.
    """
    python = _fresh_venv(session, ROOT / ".nox" / "typed-env", *(str(_wheel(n)) for n in PACKAGES))
    with tempfile.TemporaryDirectory(prefix="neml2-typed-") as tmp:
        script, config = Path(tmp) / "user.py", Path(tmp) / "mypy.ini"
        script.write_text(TYPED_USER_SCRIPT)
        config.write_text("[mypy]\n")
        mypy = [sys.executable, "-m", "mypy", "--config-file", str(config), "--no-incremental"]
        done = subprocess.run(
            [*mypy, "--python-executable", str(python), "--show-error-codes", str(script)],
            cwd=tmp,
            capture_output=True,
            text=True,
            check=False,
            env={k: v for k, v in os.environ.items() if k != "MYPYPATH"},
        )
    lines = done.stdout.splitlines()
    session.log("\n".join(lines))
    revealed = [line for line in lines if "Revealed type is" in line]
    errors = [line for line in lines if ": error:" in line]
    planted = f"user.py:{len(TYPED_USER_SCRIPT.splitlines())}: error:"
    problems = [line for line in revealed if 'Revealed type is "Any"' in line]
    if len(revealed) != TYPED_USER_SCRIPT.count("reveal_type("):
        problems.append(f"{len(revealed)} revealed types")
    if len(errors) != 1 or planted not in errors[0] or "[arg-type]" not in errors[0]:
        problems += errors or [f"no error at the planted line ({done.stderr.strip()})"]
    if problems:
        session.error("the installed wheels are not seen as typed:\n  " + "\n  ".join(problems))
    session.log("mypy sees every neml2 module of the installed wheels as typed")


def _tool(name: str) -> str:
    """A build tool from the dev venv (cmake, ctest, ninja come from PyPI), else from PATH."""
    return shutil.which(name, path=str(Path(sys.executable).parent)) or name


def _cmake_ctest(
    session: nox.Session, source: Path, build_dir: Path, python: Path, prefixes: list[str]
) -> None:
    """Configure, build and ctest one C++ project against installed packages."""
    session.run(
        _tool("cmake"), "-S", str(source), "-B", str(build_dir), "-G", "Ninja",
        f"-DCMAKE_MAKE_PROGRAM={_tool('ninja')}", f"-DPython3_EXECUTABLE={python}",
        f"-DCMAKE_PREFIX_PATH={';'.join(prefixes)}", external=True,
    )  # fmt: skip
    session.run(_tool("cmake"), "--build", str(build_dir), external=True)
    session.run(
        _tool("ctest"),
        "--test-dir",
        str(build_dir),
        "--output-on-failure",
        "-j",
        "2",
        external=True,
    )


@nox.session(python=False)
def cpp(session: nox.Session) -> None:
    """C++ tests (ctest), a find_package(neml2) downstream project and the same host built with
    pkg-config, against installed wheels."""
    env_dir = ROOT / ".nox" / "cpp-env"
    wheels = (str(_wheel(name)) for name in PACKAGES)
    python = _fresh_venv(session, env_dir, *wheels, PKGCONF)
    prefix = str(_site_packages(python) / "neml2")
    build_root = ROOT / ".nox" / "cpp-build"
    aoti = ROOT / PACKAGES["neml2-aoti"][0] / "tests"
    eager = ROOT / PACKAGES["neml2-eager-cpp"][0] / "tests"
    # the shared scenario artifacts the Model, dispatcher, downstream and parity ctests load
    _scenario_artifacts(session, ["float64"])
    _cmake_ctest(session, aoti / "cpp", build_root / "aoti", python, [prefix])
    _cmake_ctest(session, aoti / "downstream", build_root / "downstream", python, [prefix])
    _cmake_ctest(session, eager / "cpp", build_root / "eager", python, [prefix])
    # the route-parity suite on all six routes (none may skip): the C++ routes through
    # neml2::aoti::RouteModel (the ctest build's route_host), driven by tests/parity/_host.py
    session.run(str(python), "-m", "pip", "install", "-q", "-c", str(CONSTRAINTS), "pytest",
                "hypothesis", "numpy", external=True)  # fmt: skip
    session.run(
        str(python), "-m", "pytest", str(eager / "parity"), "-q", "-p", "no:cacheprovider",
        env={"NEML2_ROUTE_HOST": str(build_root / "eager" / "route_host"),
             "NEML2_ROUTE_PARITY_ALL": "1", "NEML2_SCENARIOS": str(ROOT / "scenarios")},
        external=True,
    )  # fmt: skip
    _pkg_config_host(session, env_dir, Path(prefix), build_root / "pkg-config")


def _pkg_config_host(session: nox.Session, env_dir: Path, prefix: Path, build_dir: Path) -> None:
    """The downstream host built by the compiler with nothing but ``pkg-config --cflags --libs
    neml2`` (the installed wheel's ``share/pkgconfig``), then run: NEML2 v3's pkg-config route."""
    env = {**os.environ, "PKG_CONFIG_PATH": str(prefix / "share" / "pkgconfig")}
    query = [str(env_dir / "bin" / "pkgconf"), "--cflags", "--libs", "neml2"]
    flags = subprocess.run(query, env=env, check=True, capture_output=True, text=True).stdout
    session.log(f"pkg-config --cflags --libs neml2: {flags.strip()}")
    build_dir.mkdir(parents=True, exist_ok=True)
    host, source = build_dir / "downstream", RUNTIME_TESTS.parent / "downstream" / "main.cpp"
    compiler = os.environ.get("CXX", "c++")
    session.run(compiler, "-std=c++17", "-O1", str(source), "-o", str(host), *flags.split(),
                external=True)  # fmt: skip
    session.run(str(host), external=True)


@nox.session(python=False, default=False)
def tsan(session: nox.Session) -> None:
    """ThreadSanitizer build of libneml2 + the dispatcher ctests (slow: not part of .ci/run).

    libneml2 is configured with -fsanitize=thread into packages/neml2-aoti/build/tsan (gitignored,
    incremental), installed there, and tests/cpp/dispatch is built against that install and run
    with halt_on_error (any report fails the session). torch itself is not instrumented; intra-op
    threads are pinned to 1 so the only concurrency is the dispatcher's own. ASLR is disabled
    (setarch -R) because GCC 12's TSan runtime rejects high-entropy mmap layouts.
    """
    package = ROOT / PACKAGES["neml2-aoti"][0]
    build = package / "build" / "tsan"
    flags = "-fsanitize=thread -g -O1"
    generator = ["-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={_tool('ninja')}"]
    common = [f"-DCMAKE_CXX_FLAGS={flags}", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
              f"-DPython3_EXECUTABLE={sys.executable}"]  # fmt: skip
    session.run(
        _tool("cmake"), "-S", str(package), "-B", str(build / "lib"), *generator, *common,
        f"-DCMAKE_INSTALL_PREFIX={build / 'install'}", "-DNEML2_MPI=OFF", external=True,
    )  # fmt: skip
    session.run(_tool("cmake"), "--build", str(build / "lib"), "--target", "install", external=True)
    session.run(
        _tool("cmake"), "-S", str(package / "tests" / "cpp" / "dispatch"), "-B", str(build / "tests"),
        *generator, *common, f"-DCMAKE_PREFIX_PATH={build / 'install' / 'neml2'}", external=True,
    )  # fmt: skip
    session.run(_tool("cmake"), "--build", str(build / "tests"), external=True)
    env = {"TSAN_OPTIONS": "halt_on_error=1 second_deadlock_stack=1", "OMP_NUM_THREADS": "1"}
    ctest = [_tool("ctest"), "--test-dir", str(build / "tests"), "--output-on-failure"]
    session.run("setarch", "-R", *ctest, *session.posargs, env=env, external=True)


#: The native-kernel tests: every test of a kernel with CPU-specific code paths (batched LU,
#: sum_of_products, the SIMD path selection), of the workspace its outputs come from, and of
#: py-eager's use of them.
NATIVE_TESTS = [
    "packages/neml2-aoti/tests/test_linalg.py",
    "packages/neml2-aoti/tests/test_products.py",
    "packages/neml2-aoti/tests/test_workspace.py",
    "packages/neml2-models/tests/solvers/test_native.py",
    "packages/neml2-models/tests/solvers/test_direct.py",
    "packages/neml2-models/tests/implicit/test_chaboche.py",
]
#: Runtime tests that drive the Newton loop and the kernels through whole models: the route
#: parity scenarios (Chaboche included, batch 64) and concurrent calls of one compiled model.
PARITY_TESTS = "packages/neml2-aoti/tests/runtime/test_parity.py"
NATIVE_MODEL_TESTS = [PARITY_TESTS, "packages/neml2-aoti/tests/runtime/test_concurrency.py"]


def _simd_paths() -> list[str]:
    """The SIMD paths this CPU and libneml2 build support (scalar first)."""
    probe = "from neml2.aoti._aoti import supported_simd_paths as s; print(' '.join(s()))"
    return subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True
    ).stdout.split()


@nox.session(python=False)
def native(session: nox.Session) -> None:
    """The native-kernel and model-level runtime tests with each SIMD path forced in turn.

    ``NEML2_SIMD`` is set to every path the CPU supports (scalar and avx2 on any x86-64 CI
    machine, avx512 where present), so each hand-vectorized code path runs on every machine that
    can run it, not only the widest one. Fails at the end, naming every failed path.
    """
    _scenario_artifacts(session, ["float64"])
    failed = []
    for path in _simd_paths():
        session.log(f"NEML2_SIMD={path}")
        try:
            session.run(
                sys.executable, "-m", "pytest", *NATIVE_TESTS, *NATIVE_MODEL_TESTS, "-q",
                "-n", "2", "-p", "no:cacheprovider", *session.posargs,
                env={"NEML2_SIMD": path}, external=True,
            )  # fmt: skip
        except nox.command.CommandFailed:
            failed.append(path)
    if failed:
        session.error(f"native tests failed with NEML2_SIMD={', '.join(failed)}")


SANITIZE_FLAGS = (
    "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1"
)
SANITIZE_ENV = {
    # Python and torch keep memory until exit by design: leaks are not what this session checks
    "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1:strict_string_checks=1:check_initialization_order=1"
    # a failed allocation is an exception to test, not a report (test_allocator provokes one)
    ":allocator_may_return_null=1",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
    "PYTHONMALLOC": "malloc",  # every Python allocation through ASan's malloc
    "OMP_NUM_THREADS": "2",
}


#: Fails unless the Python process runs the sanitized libneml2.so (argv[1]) and no other copy:
#: the kernels the Python tests call are then the instrumented ones.
SANITIZED_PROBE = """
import sys, torch, neml2.aoti._aoti as ext
libs = {line.split()[-1] for line in open("/proc/self/maps") if line.rstrip().endswith("libneml2.so")}
assert libs == {sys.argv[1]}, f"libneml2.so loaded from {sorted(libs)}, expected {sys.argv[1]}"
print("sanitized libneml2.so in use:", sys.argv[1], "SIMD path:", ext.simd_path())
"""


def _compiler_runtime(name: str) -> str:
    """The path of a GCC runtime library (libasan.so), for LD_PRELOAD."""
    path = subprocess.run(
        ["g++", f"-print-file-name={name}"], check=True, capture_output=True, text=True
    ).stdout.strip()
    if not Path(path).is_absolute():
        raise FileNotFoundError(f"g++ has no {name}: install the compiler's sanitizer runtimes")
    return path


def _sanitized_build(session: nox.Session, source: Path, build: Path, prefix: Path) -> None:
    """Configure, build and install one C++ project with SANITIZE_FLAGS (incremental)."""
    session.run(
        _tool("cmake"), "-S", str(source), "-B", str(build), "-G", "Ninja",
        f"-DCMAKE_MAKE_PROGRAM={_tool('ninja')}", f"-DCMAKE_CXX_FLAGS={SANITIZE_FLAGS}",
        "-DCMAKE_BUILD_TYPE=Debug", f"-DPython3_EXECUTABLE={sys.executable}",
        f"-DCMAKE_INSTALL_PREFIX={prefix}", f"-DCMAKE_PREFIX_PATH={prefix / 'neml2'}",
        external=True,
    )  # fmt: skip
    session.run(_tool("cmake"), "--build", str(build), "--target", "install", external=True)


@nox.session(python=False)
def sanitize(session: nox.Session) -> None:
    """AddressSanitizer + UndefinedBehaviorSanitizer over the native code, on every SIMD path.

    libneml2 and libneml2_eager are built with ``SANITIZE_FLAGS`` into ``build/sanitize``
    (gitignored, incremental) and installed there; against that install it builds and runs the
    ctest suites of both libraries, then runs the native-kernel Python tests and the Chaboche
    forward + jacobian through py-eager and py-aoti at batch 64 (route parity) in the dev venv,
    with ASan preloaded and the sanitized libneml2.so preloaded in place of the editable one
    (same sources, same ABI: the Python bindings then call instrumented kernels). All of it runs
    once per SIMD path the CPU supports. Any sanitizer report aborts its process, so zero reports
    is the pass condition. The scenario artifacts are compiled first, outside the sanitizers.
    """
    _scenario_artifacts(session, ["float64"])
    root = ROOT / "build" / "sanitize"
    prefix = root / "install"
    aoti, eager = ROOT / PACKAGES["neml2-aoti"][0], ROOT / PACKAGES["neml2-eager-cpp"][0]
    _sanitized_build(session, aoti, root / "aoti", prefix)
    _sanitized_build(session, eager, root / "eager", prefix)
    tests = [
        (aoti / "tests" / "cpp", root / "aoti-tests"),
        (eager / "tests" / "cpp", root / "eager-tests"),
    ]
    for source, build in tests:
        session.run(
            _tool("cmake"), "-S", str(source), "-B", str(build), "-G", "Ninja",
            f"-DCMAKE_MAKE_PROGRAM={_tool('ninja')}", f"-DCMAKE_CXX_FLAGS={SANITIZE_FLAGS}",
            f"-DPython3_EXECUTABLE={sys.executable}", f"-DCMAKE_PREFIX_PATH={prefix / 'neml2'}",
            external=True,
        )  # fmt: skip
        session.run(_tool("cmake"), "--build", str(build), external=True)
    torch_lib = subprocess.run(
        [sys.executable, "-c", "import torch, os; print(os.path.dirname(torch.__file__))"],
        check=True, capture_output=True, text=True,
    ).stdout.strip() + "/lib"  # fmt: skip
    preload = [_compiler_runtime("libasan.so"), str(prefix / "neml2" / "lib" / "libneml2.so")]
    env = {
        **SANITIZE_ENV,
        "LD_PRELOAD": " ".join(preload),
        "LD_LIBRARY_PATH": ":".join(filter(None, [torch_lib, os.environ.get("LD_LIBRARY_PATH")])),
    }
    failed = []
    for path in _simd_paths():
        session.log(f"sanitizers, NEML2_SIMD={path}")
        run_env = {**env, "NEML2_SIMD": path}
        steps = [
            [_tool("ctest"), "--test-dir", str(build), "--output-on-failure", "-j", "2"]
            for _, build in tests
        ]
        # --capture=sys: a sanitizer report is written to file descriptor 2 just before the
        # process aborts; pytest's default fd capture would take it down with the process
        pytest = [sys.executable, "-m", "pytest", "-q", "--capture=sys", "-p", "no:cacheprovider"]
        steps.append([sys.executable, "-c", SANITIZED_PROBE, preload[1]])
        steps.append([*pytest, *NATIVE_TESTS])
        steps.append([*pytest, PARITY_TESTS, "-k", "chaboche and 64"])
        for step in steps:
            try:
                session.run(*step, env=run_env, external=True)
            except nox.command.CommandFailed:
                failed.append(f"NEML2_SIMD={path}: {' '.join(Path(a).name for a in step)}")
    if failed:
        session.error("sanitizer runs failed:\n  " + "\n  ".join(failed))


def _read_at(path: str, commit: str | None) -> str:
    """A repository file at a commit, or in the working tree when commit is None."""
    if commit is None:
        return (ROOT / path).read_text()
    return subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{commit}:{path}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def _siblings(name: str, commit: str | None) -> dict[str, SpecifierSet]:
    """The sibling requirements (runtime dependencies) of a package at a commit."""
    project = tomllib.loads(_read_at(f"{PACKAGES[name][0]}/pyproject.toml", commit))["project"]
    reqs = [Requirement(r) for r in project.get("dependencies", [])]
    return {r.name: r.specifier for r in reqs if r.name in PACKAGES}


def _about(name: str) -> str:
    """The repository path of a package's ``__about__.py`` (its one version string)."""
    folder, sub = PACKAGES[name]
    return f"{folder}/src/neml2/{sub}/__about__.py"


def _version_at(name: str, commit: str | None) -> Version | None:
    """A package's ``__version__`` at a commit (None: the working tree); None where the commit
    has no ``__about__.py`` or no version in it."""
    try:
        text = _read_at(_about(name), commit)
    except subprocess.CalledProcessError:
        return None
    match = re.search(r'__version__\s*=\s*"([^"]+)"', text)
    return Version(match.group(1)) if match else None


def _git(*args: str) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True
    )
    return out.stdout.split()


def _release_tags(name: str) -> dict[Version, str]:
    """Released versions of a package from its tags ``<dist>-v<version>`` -> tagged commit."""
    found: dict[Version, str] = {}
    for tag in _git("tag", "--list", f"{name}-v*"):
        version = Version(tag.removeprefix(f"{name}-v"))
        commit = _git("rev-list", "-n", "1", tag)[0]
        if _version_at(name, commit) != version:
            raise ValueError(f"tag {tag}: __about__.py at {commit[:10]} is not {version}")
        found[version] = commit
    return found


def _versions(name: str) -> dict[Version, str | None]:
    """Every released version of a package -> the commit to build it from.

    Releases are the tags ``<dist>-v<version>`` (``docs/releasing.md``); a clone without tags
    falls back to the history of ``__about__.py`` (the newest commit carrying each version). The
    working tree's version maps to None (its current state, built by ``build``).
    """
    found: dict[Version, str | None] = {}
    # each commit that changed __about__.py ends the previous version: its parent is the newest
    # commit carrying that version
    for commit in _git("log", "--format=%H", "--", _about(name)):  # newest first
        previous = _version_at(name, f"{commit}^")
        if previous is not None and previous != _version_at(name, commit):
            found.setdefault(previous, _git("rev-parse", f"{commit}^")[0])
    found.update(_release_tags(name))
    current = _version_at(name, None)
    if current is not None:
        found[current] = None
    return found


def _changelog_problems() -> list[str]:
    """Each package's CHANGELOG has a dated section for the version in its ``__about__.py``."""
    problems = []
    for name, (folder, _) in PACKAGES.items():
        version = _version_at(name, None)
        changelog = (ROOT / folder / "CHANGELOG.md").read_text()
        if not re.search(
            rf"^## {re.escape(str(version))} \(\d{{4}}-\d{{2}}-\d{{2}}\)$", changelog, re.M
        ):
            problems.append(f"{folder}/CHANGELOG.md: no section '## {version} (YYYY-MM-DD)'")
    return problems


def plan_lowest(name: str) -> dict[str, tuple[Version, str | None]]:
    """The lowest sibling versions the ranges of ``name`` (and, transitively, theirs) allow."""
    constraints: dict[str, SpecifierSet] = dict(_siblings(name, None))
    plan: dict[str, tuple[Version, str | None]] = {}
    for _ in range(len(PACKAGES) + 1):
        changed = False
        for sibling, spec in list(constraints.items()):
            history = _versions(sibling)
            allowed = sorted(v for v in history if v in spec)
            if not allowed:
                raise ValueError(
                    f"{name}: no version of {sibling} in git history satisfies '{spec}'"
                )
            choice = (allowed[0], history[allowed[0]])
            if plan.get(sibling) != choice:
                plan[sibling], changed = choice, True
                for dep, dep_spec in _siblings(sibling, choice[1]).items():
                    if dep != name:
                        constraints[dep] = constraints.get(dep, SpecifierSet()) & dep_spec
        if not changed:
            return plan
    raise RuntimeError(f"{name}: sibling constraints did not settle")


@nox.session(python=False)
def compat(session: nox.Session) -> None:
    """Each package's tests with its siblings at the lowest versions its ranges allow."""
    base = ROOT / ".nox" / "compat-base"
    base_python = _fresh_venv(
        session,
        base,
        "pytest",
        "pytest-xdist",
        "hypothesis",
        "numpy",
        "scipy",
        "matplotlib",
        "tqdm",
        "pyzag",
    )
    base_site = _site_packages(base_python)
    failed = []
    with tempfile.TemporaryDirectory(prefix="neml2-compat-") as tmp:
        for name in PACKAGES:
            try:
                _compat_one(session, name, base_python, base_site, Path(tmp))
            except nox.command.CommandFailed:
                failed.append(name)
    if failed:
        session.error(f"compat failed for: {', '.join(failed)}")


def _compat_one(
    session: nox.Session, name: str, base_python: Path, base_site: Path, tmp: Path
) -> None:
    """Install one package's wheel with its lowest siblings in a fresh venv; run its tests."""
    plan = plan_lowest(name)
    if not plan:
        session.log(f"{name}: no sibling requirements")
        return
    wheels = [_wheel(name)]
    for sibling, (version, commit) in plan.items():
        session.log(f"{name}: {sibling}=={version} ({commit or 'working tree'})")
        wheels.append(
            _wheel(sibling) if commit is None else _build_at(session, sibling, commit, tmp)
        )
    venv = tmp / f"venv-{name}"
    _python(session, "-m", "venv", "--without-pip", str(venv))
    # torch and the test tools of the base venv, linked instead of reinstalled
    _link_site(base_site, next((venv / "lib").glob("python*/site-packages")))
    py = str(venv / "bin" / "python")
    pip = [str(base_python), "-m", "pip", "--python", py]
    session.run(*pip, "install", "-q", "--no-deps", *map(str, wheels), external=True)
    session.run(*pip, "check", external=True)
    tests_dir = ROOT / PACKAGES[name][0] / "tests"
    if any(tests_dir.glob("**/test_*.py")):
        pytest = [py, "-m", "pytest", str(tests_dir), "-q", "-n", "2", "-p", "no:cacheprovider"]
        session.run(*pytest, external=True)


def _build_at(session: nox.Session, name: str, commit: str, tmp: Path) -> Path:
    """Build the wheel of one package from a past commit (git archive into a temp dir)."""
    folder = PACKAGES[name][0]
    src = tmp / f"src-{name}-{commit[:10]}"
    src.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit, folder], check=True, capture_output=True
    )
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive.stdout, check=True)
    out = tmp / f"dist-{name}-{commit[:10]}"
    _python(
        session, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(src / folder)
    )
    return next(out.glob("*.whl"))


DOCS = ROOT / "docs"


@nox.session(python=False)
def docs(session: nox.Session) -> None:
    """The documentation site into ``docs/_build/html``, every warning an error.

    Sphinx over ``docs/``: the MyST pages, the API reference from the installed packages'
    docstrings, the input-file syntax generated from the registry, and the tutorials of
    ``docs/tutorials`` executed by sphinx-gallery (rebuilt from scratch, so every tutorial runs).
    Posargs go to ``sphinx-build`` (``-b linkcheck``, ``-j 2``, ...).
    """
    shutil.rmtree(DOCS / "generated", ignore_errors=True)
    shutil.rmtree(DOCS / "_build", ignore_errors=True)
    session.env.setdefault("NEML2_COMPILE_CACHE", str(COMPILE_CACHE))
    session.env.setdefault("OMP_NUM_THREADS", "1")
    sphinx = ["-m", "sphinx", "-W", "--keep-going", "-E", "-b", "html"]
    _python(session, *sphinx, str(DOCS), str(DOCS / "_build" / "html"), *session.posargs)
    session.log(f"site: {(DOCS / '_build' / 'html' / 'index.html').relative_to(ROOT)}")


@nox.session(python=False)
def demo(session: nox.Session) -> None:
    """The main job: run the Chaboche viscoplastic example with ``neml2-run`` and show the result.

    Two fully reversed cycles of uniaxial strain at two amplitudes (py-eager: implicit update with
    Newton + DenseLU per step). Writes the history to ``demo-output/chaboche.csv`` and the
    stress-strain loops to ``demo-output/chaboche.png``, and prints a table of the response.
    """
    DEMO_OUTPUT.mkdir(exist_ok=True)
    csv_path, png_path = DEMO_OUTPUT / "chaboche.csv", DEMO_OUTPUT / "chaboche.png"
    run = [str(Path(sys.executable).with_name("neml2-run")), str(DEMO_INPUT.relative_to(ROOT))]
    session.run(*run, "driver", "--csv", str(csv_path), "--plot", str(png_path), external=True)
    with csv_path.open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["batch"] == "1" and int(r["step"]) % 10 == 0]
    cols = ["step", "t", "strain_xx", "stress_xx", "stress_yy", "equivalent_plastic_strain"]
    print(f"{DEMO_INPUT.relative_to(ROOT)} (batch entry 1: strain amplitude 1 %)")
    widths = [max(12, len(c) + 2) for c in cols]
    print("".join(f"{c:>{w}}" for c, w in zip(cols, widths, strict=True)))
    for r in rows:  # step 0 records the prescribed inputs only: outputs print as "-"
        cells = (
            f"{float(r[c]):>{w}.5g}" if r[c] else f"{'-':>{w}}"
            for c, w in zip(cols, widths, strict=True)
        )
        print("".join(cells))
    print(f"history: {csv_path.relative_to(ROOT)}   plot: {png_path.relative_to(ROOT)}")


@nox.session(python=False)
def bench(session: nox.Session) -> None:
    """The benchmark suite (``python -m bench.suite``; see ``bench/README.md``).

    Every workload (its input files from the shared ``scenarios/``) on every route, batch and
    thread count, the machine's limits, compile time and peak memory; writes
    ``bench-results/bench.{json,md}`` and ``throughput.png``. Posargs go to the suite (``--quick``, ``--compare PYTHON``, ...);
    ``--micro`` also runs every ``bench/bench_*.py`` micro-benchmark (with ``--quick`` if given).
    """
    args = [a for a in session.posargs if a != "--micro"]
    _python(session, "-m", "bench.suite", *args)
    if "--micro" not in session.posargs:
        return
    failed = []
    for script in sorted((ROOT / "bench").glob("bench_*.py")):
        try:
            _python(
                session, str(script.relative_to(ROOT)), *(["--quick"] if "--quick" in args else [])
            )
        except nox.command.CommandFailed:
            failed.append(script.name)
    if failed:
        session.error(f"benchmarks failed: {', '.join(failed)}")
