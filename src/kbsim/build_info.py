"""Whether this kbsim runs mypyc-compiled modules or pure Python (issue 13; the build is ``hatch_build.py``).

A wheel built with a C compiler holds C extensions (``turn.cpython-311-x86_64-linux-gnu.so`` ...) next to the
``.py`` files of the hot modules, and Python imports the extension first. This module reads what is there: the
extension files of the package, the build record ``kbsim/_build_info.json`` the hook writes, and, for a source
tree compiled in place, any ``.py`` edited after its extension was built (the stale extension would run).
"""

from __future__ import annotations

import importlib.machinery
import json
from dataclasses import dataclass, field
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class BuildInfo:
    """What the running kbsim is built from.

    Attributes:
        compiled: dotted names of the modules imported from a C extension (empty: pure Python).
        stale: dotted names of compiled modules whose ``.py`` is newer than the extension.
        reason: the build hook's note (how long the compile took, or why the build is pure Python);
            empty when the package was not built by the hook (a plain source tree).
    """

    compiled: tuple[str, ...] = ()
    stale: tuple[str, ...] = field(default=())
    reason: str = ""

    @property
    def mode(self) -> str:
        """One line: ``compiled (mypyc, 12 modules)`` or ``pure Python (<reason>)``."""
        if self.compiled:
            extra = f"; STALE: {', '.join(self.stale)}" if self.stale else ""
            return f"compiled (mypyc, {len(self.compiled)} modules{extra})"
        return f"pure Python ({self.reason})" if self.reason else "pure Python"


def build_info() -> BuildInfo:
    """Scan the installed package for compiled modules and read the build record.

    Returns:
        A :class:`BuildInfo`; the scan reads file names and times only (about a millisecond), no module is
        imported.
    """
    compiled, stale = [], []
    in_source_tree = _PACKAGE.parent.name == "src" and (_PACKAGE.parent.parent / "pyproject.toml").exists()
    suffixes = importlib.machinery.EXTENSION_SUFFIXES  # the most specific first (".cpython-311-...so", ".so")
    for ext in _PACKAGE.rglob("*.*"):
        suffix = next((s for s in suffixes if ext.name.endswith(s)), None)
        if suffix is not None:
            stem = ext.name[: -len(suffix)]
            rel = ext.parent.relative_to(_PACKAGE.parent)
            name = ".".join((*rel.parts, stem))
            compiled.append(name)
            source = ext.with_name(stem + ".py")
            # (a source tree only: an installed wheel's files all carry the time of the install)
            if in_source_tree and source.exists() and source.stat().st_mtime > ext.stat().st_mtime:
                stale.append(name)
    reason = ""
    record = _PACKAGE / "_build_info.json"
    if record.exists():
        try:
            reason = str(json.loads(record.read_text(encoding="utf-8")).get("reason", ""))
        except (OSError, ValueError):
            reason = "unreadable build record"
    return BuildInfo(tuple(sorted(compiled)), tuple(sorted(stale)), reason)
