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
import os, sys, threading
from concurrent.futures import ThreadPoolExecutor
from setuptools import setup
from mypyc.build import mypycify

paths, target, build_lib, build_temp, cache, config, jobs = sys.argv[1:8]
jobs = int(jobs)
print("kbsim-progress: generating C", flush=True)
exts = mypycify(
    ["--cache-dir", cache, "--config-file", config, *paths.split(",")],
    target_dir=target,
    opt_level="3",
    multi_file=True,  # one C file per module (and runtime part): compiled in parallel below
)
total = sum(len(e.sources) for e in exts)
print(f"kbsim-progress: compiling {total} C files on {jobs} cores", flush=True)
done = [0]
lock = threading.Lock()


def parallel_compile(self, sources, output_dir=None, macros=None, include_dirs=None, debug=0,
                     extra_preargs=None, extra_postargs=None, depends=None):
    # distutils' CCompiler.compile, with the files of one extension compiled by `jobs` threads (gcc processes)
    macros, objects, extra_postargs, pp_opts, build = self._setup_compile(
        output_dir, macros, include_dirs, sources, depends, extra_postargs)
    cc_args = self._get_cc_args(pp_opts, debug, extra_preargs)

    def one(obj):
        src, ext = build[obj]
        self._compile(obj, src, ext, cc_args, extra_postargs, pp_opts)
        with lock:
            done[0] += 1
            print(f"kbsim-progress: compiled {done[0]}/{total} C files", flush=True)

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        list(pool.map(one, [o for o in objects if o in build]))
    return objects


try:
    from setuptools._distutils import ccompiler
    base = ccompiler.CCompiler
    if all(hasattr(base, m) for m in ("_setup_compile", "_get_cc_args", "_compile")):
        base.compile = parallel_compile
except Exception as e:  # an unknown setuptools: the files of an extension are compiled one by one
    print(f"kbsim-progress: serial compile ({e})", flush=True)
setup(
    name="kbsim-mypyc",
    ext_modules=exts,
    script_args=["build_ext", "--build-lib", build_lib, "--build-temp", build_temp, "--parallel", str(jobs)],
)
"""


def _cores() -> int:
    """The cores this process may use (the C files are compiled on all of them; ``KBSIM_BUILD_JOBS`` overrides)."""
    env = os.environ.get("KBSIM_BUILD_JOBS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class _Terminal:
    """Progress lines on the user's terminal while pip builds the wheel.

    pip shows a build backend's output only with ``-v``, so the minute the compile takes would pass behind
    pip's spinner with no word. These lines go to the controlling terminal (``/dev/tty``) when there is one;
    nowhere in CI or with ``KBSIM_BUILD_QUIET=1``. Every line also goes to stderr (shown by ``pip -v``).
    """

    def __init__(self) -> None:
        self.tty = None
        if not _flag("KBSIM_BUILD_QUIET"):
            try:
                self.tty = open("/dev/tty", "w", encoding="utf-8", errors="replace")
            except OSError:
                self.tty = None

    def say(self, line: str) -> None:
        """Print one line (a fresh line on the terminal: pip's spinner shares it)."""
        print(line, file=sys.stderr, flush=True)
        if self.tty is not None:
            try:
                self.tty.write(f"\n{line}" if not line.startswith("\n") else line)
                self.tty.flush()
            except OSError:
                self.tty = None

    def close(self) -> None:
        """Finish the terminal's last line."""
        if self.tty is not None:
            try:
                self.tty.write("\n")
                self.tty.close()
            except OSError:
                pass
            self.tty = None


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


def compile_modules(paths: list[str], out_dir: Path, jobs: int | None = None) -> tuple[bool, str]:
    """Compile ``paths`` (relative to ``src/``) with mypyc into ``out_dir`` (laid out like ``src/``).

    mypyc writes one C file per module (``multi_file``), and the C files are compiled in parallel on ``jobs``
    cores (default: every core this process may use): on 2 cores the compile takes about half the time of one
    big C file on one core. Progress lines go to the terminal (:class:`_Terminal`).

    Returns:
        (True, summary) on success, (False, the reason in one line) on failure.
    """
    jobs = jobs or _cores()
    term = _Terminal()
    try:
        return _compile(paths, out_dir, jobs, term)
    finally:
        term.close()


def _compile(paths: list[str], out_dir: Path, jobs: int, term: _Terminal) -> tuple[bool, str]:
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
            str(jobs),
        ]
        start = time.monotonic()
        term.say(f"kbsim: compiling {len(paths)} modules with mypyc on {jobs} core(s); about a minute on 2 free cores")
        try:
            proc = subprocess.Popen(
                cmd, cwd=SRC, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace"
            )
        except OSError as e:
            return False, f"could not run mypyc ({e})"
        log: list[str] = []
        assert proc.stdout is not None
        shown = 0
        for line in proc.stdout:
            log.append(line)
            if line.startswith("kbsim-progress: compiled "):
                done, total = (int(x) for x in line.split()[2].split("/"))
                if done * 4 // total > shown:  # a line at each quarter
                    shown = done * 4 // total
                    term.say(f"kbsim: {done}/{total} C files compiled ({time.monotonic() - start:.0f} s)")
            elif line.startswith("kbsim-progress: "):
                term.say(f"kbsim: {line.removeprefix('kbsim-progress: ').strip()} ({time.monotonic() - start:.0f} s)")
        code = proc.wait()
        text = "".join(log)
        if code:
            (ROOT / "build").mkdir(exist_ok=True)
            (ROOT / "build" / "mypyc-error.log").write_text(text, encoding="utf-8")
            lines = [ln for ln in text.splitlines() if "error" in ln.lower()]
            why = lines[-1].strip() if lines else f"exit status {code}"
            return False, f"{why[:200]} (full log: build/mypyc-error.log)"
        took = time.monotonic() - start
        term.say(f"kbsim: compiled {len(paths)} modules with mypyc in {took:.0f} s")
        return True, f"{len(paths)} modules compiled with mypyc in {took:.0f} s on {jobs} core(s)"


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
