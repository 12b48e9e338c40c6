"""Hatch build hook: compile kbsim's hot modules with mypyc, or install pure Python (issue 13).

The modules listed under ``mypyc-modules`` in ``[tool.hatch.build.targets.wheel.hooks.custom]`` of
``pyproject.toml`` are compiled to C extensions with mypyc and a C compiler (gcc or clang, with the Python
headers) when a regular wheel is built (``pip install .``, ``python -m build``). The ``.py`` files stay in the
wheel next to the extensions; Python imports the extension first.

* ``KBSIM_PURE=1`` forces pure Python (no compile).
* If the compile fails (no C compiler, no Python headers, a mypyc error), the wheel is pure Python and the hook
  prints one line saying so; ``KBSIM_COMPILE=1`` turns that failure into a build error instead.
* Editable installs (``pip install -e .``) are pure Python unless ``KBSIM_COMPILE=1`` is set: then the
  extensions are built into ``src/`` (git-ignored); a ``.py`` edited after that build is reported by ``kbsim
  info`` and at import (the old compiled code would run), and ``KBSIM_COMPILE=1 pip install -e .`` rebuilds,
  ``python hatch_build.py --clean`` removes them.

Every wheel records what happened in ``kbsim/_build_info.json`` (read by :mod:`kbsim.build_info`).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

try:  # the hook class needs hatchling; ``python hatch_build.py --clean`` does not
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # pragma: no cover
    BuildHookInterface = object  # type: ignore[misc,assignment]  # hatchling is absent outside a build

ROOT = Path(__file__).resolve().parent
SRC = ROOT / "src"
EXT_SUFFIX = sysconfig.get_config_var("EXT_SUFFIX") or ".so"

_SETUP = """
import sys
from setuptools import setup
from mypyc.build import mypycify

paths, target, build_lib, build_temp, cache = sys.argv[1:6]
setup(
    name="kbsim-mypyc",
    ext_modules=mypycify(
        ["--cache-dir", cache, "--config-file", sys.argv[6], *paths.split(",")], target_dir=target, opt_level="3"
    ),
    script_args=["build_ext", "--build-lib", build_lib, "--build-temp", build_temp],
)
"""


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


def compile_modules(paths: list[str], out_dir: Path) -> tuple[bool, str]:
    """Compile ``paths`` (relative to ``src/``) with mypyc into ``out_dir`` (laid out like ``src/``).

    Returns:
        (True, summary) on success, (False, the reason in one line) on failure.
    """
    with tempfile.TemporaryDirectory(prefix="kbsim-mypyc-") as tmp:
        t = Path(tmp)
        problem = _compiler_problem(t)
        if problem:
            return False, problem
        cmd = [
            sys.executable,
            "-c",
            _SETUP,
            ",".join(paths),
            str(t / "c"),
            str(out_dir),
            str(t / "obj"),
            str(t / "cache"),
            str(ROOT / "pyproject.toml"),
        ]
        start = time.monotonic()
        try:
            proc = subprocess.run(cmd, cwd=SRC, capture_output=True, text=True, check=False)
        except OSError as e:
            return False, f"could not run mypyc ({e})"
        log = proc.stdout + proc.stderr
        if proc.returncode:
            (ROOT / "build").mkdir(exist_ok=True)
            (ROOT / "build" / "mypyc-error.log").write_text(log, encoding="utf-8")
            lines = [ln for ln in log.splitlines() if "error" in ln.lower()]
            why = lines[-1].strip() if lines else f"exit status {proc.returncode}"
            return False, f"{why[:200]} (full log: build/mypyc-error.log)"
        return True, f"{len(paths)} modules compiled with mypyc in {time.monotonic() - start:.0f} s"


def _compiler_problem(tmp: Path) -> str:
    """Why the C compiler cannot build an extension (empty if it can): compile one file that includes Python.h.

    Checked before mypyc runs, so a machine without a compiler falls back at once rather than after the
    minute mypyc takes to generate C.
    """
    cc = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    include = sysconfig.get_paths()["include"]
    probe = tmp / "probe.c"
    probe.write_text("#include <Python.h>\nint kbsim_probe(void) { return 0; }\n", encoding="utf-8")
    try:
        proc = subprocess.run(
            [*cc, "-c", str(probe), "-o", str(tmp / "probe.o"), f"-I{include}"], capture_output=True, text=True
        )
    except OSError as e:
        return f"no C compiler ({cc[0]}: {e.strerror})"
    if proc.returncode:
        first = (proc.stderr or proc.stdout).strip().splitlines()[:1]
        return f"the C compiler {cc[0]} cannot build against the Python headers ({first[0] if first else 'failed'})"
    return ""


def built_files(out_dir: Path) -> list[Path]:
    """The extension files of a compile, relative to ``out_dir``."""
    return sorted(p.relative_to(out_dir) for p in out_dir.rglob("*" + EXT_SUFFIX))


def clean_src() -> list[Path]:
    """Remove compiled extensions from ``src/`` (left by ``KBSIM_COMPILE=1 pip install -e .``)."""
    gone = [p for p in SRC.rglob("*" + EXT_SUFFIX)]
    for p in gone:
        p.unlink()
    return gone


class MypycHook(BuildHookInterface):  # type: ignore[misc,valid-type]
    """Compile the listed modules into the wheel, or fall back to pure Python (module docstring)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        """Hatch calls this before it builds the wheel (``version`` is ``standard`` or ``editable``)."""
        if self.target_name != "wheel":
            return
        paths = list(self.config.get("mypyc-modules", []))
        force = _flag("KBSIM_COMPILE")
        info: dict = {"compiled": False, "modules": [], "reason": ""}
        if _flag("KBSIM_PURE"):
            info["reason"] = "KBSIM_PURE was set at install"
        elif version == "editable" and not force:
            info["reason"] = "editable install (KBSIM_COMPILE=1 pip install -e . compiles)"
        else:
            self._tmp = tempfile.mkdtemp(prefix="kbsim-wheel-")
            out = SRC if version == "editable" else Path(self._tmp) / "lib"
            if version == "editable":
                clean_src()
            ok, msg = compile_modules(paths, out)
            if ok:
                files = built_files(out)
                info.update(compiled=True, modules=[str(p) for p in files if "/" in str(p)], reason=msg)
                build_data["pure_python"] = False
                build_data["infer_tag"] = True
                if version == "editable":
                    # the group's shared library lands at the top of src/; the editable .pth puts src/ on the path
                    pass
                else:
                    for p in files:
                        build_data["force_include"][str(out / p)] = str(p)
            elif force:
                raise RuntimeError(f"kbsim: KBSIM_COMPILE=1 but the mypyc compile failed: {msg}")
            else:
                info["reason"] = f"compile failed: {msg}"
        self._info_dir = tempfile.mkdtemp(prefix="kbsim-info-")
        info_file = Path(self._info_dir) / "_build_info.json"
        info_file.write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
        if version != "editable":
            build_data["force_include"][str(info_file)] = "kbsim/_build_info.json"
        else:
            shutil.copy(info_file, SRC / "kbsim" / "_build_info.json")
        state = f"compiled ({info['reason']})" if info["compiled"] else f"pure Python: {info['reason']}"
        print(f"kbsim: {state}", file=sys.stderr)

    def finalize(self, version: str, build_data: dict, artifact_path: str) -> None:
        """Remove the temporary compile output once the wheel is written."""
        for d in (getattr(self, "_tmp", None), getattr(self, "_info_dir", None)):
            if d:
                shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1:] == ["--clean"]:
        for p in clean_src():
            print(f"removed {p.relative_to(ROOT)}")
    else:
        print("usage: python hatch_build.py --clean   (remove compiled extensions from src/)")
