"""Which module names each file answers to, and which module keys an import statement names, per language family.

A module key is (system, components). Python files answer to their dotted path from the workspace root and to their
package name (the path from the topmost folder with an `__init__.py`): `src/pkg/mod.py` is both `src.pkg.mod` and
`pkg.mod`. JS/TS files answer to their path without extension (`index` files also to their folder). Go, Java-family and
Rust files answer to every suffix of their package path, because an import names a package from a root the workspace
does not know (`github.com/org/repo/pkg`, `com.example.util`, `crate::a::b`); C, C++ and Ruby files to every suffix of
their own path (`#include "util/str.h"`, `require "util/str"`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable

ModuleKey = tuple[str, tuple[str, ...]]

_SYSTEMS: dict[str, str] = {
    "python": "py",
    "javascript": "js",
    "typescript": "js",
    "tsx": "js",
    "go": "go",
    "java": "jvm",
    "kotlin": "jvm",
    "scala": "jvm",
    "csharp": "jvm",
    "ruby": "rb",
    "rust": "rs",
    "c": "c",
    "cpp": "c",
    "cuda": "c",
    "objc": "c",
}
# How a module path is written in an import, per system (to name a submodule: `pkg` + `mod`).
_SEPARATORS: dict[str, str] = {"py": ".", "js": "/", "go": "/", "jvm": ".", "rs": "::", "c": "/", "rb": "/"}
_JS_SUFFIXES = (".d.ts", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_PY_SUFFIXES = (".pyi", ".pyw", ".py")
_RS_ROOT_FILES = ("mod", "lib", "main")
# Systems where the files of one folder share one namespace (a package).
PACKAGE_SYSTEMS = frozenset({"go", "jvm"})
INIT_FILE = "__init__.py"


def system_of(language: str | None) -> str | None:
    """The module system of a language, or None when its imports are not resolved to files."""
    return _SYSTEMS.get(language or "")


def separator(system: str) -> str:
    return _SEPARATORS[system]


def _strip_suffix(name: str, suffixes: Iterable[str]) -> str:
    for suffix in suffixes:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _parts(path: str) -> tuple[str, ...]:
    return tuple(p for p in path.split("/") if p)


def python_components(path: str) -> tuple[str, ...]:
    """`pkg/sub/mod.py` → (pkg, sub, mod); `pkg/__init__.py` → (pkg,)."""
    parts = _parts(_strip_suffix(path, _PY_SUFFIXES))
    return parts[:-1] if parts and parts[-1] == "__init__" else parts


def module_keys(path: str, system: str | None, is_package: Callable[[str], bool]) -> tuple[ModuleKey, ...]:
    """The module keys a file answers to; `is_package(folder)` tells whether a folder holds an `__init__.py`
    (Python package names run from the topmost folder of such a chain)."""
    if system is None:
        return ()
    if system == "py":
        full = python_components(path)
        package = _python_package_name(path, full, is_package)
        return tuple(dict.fromkeys([("py", full), ("py", package)]))
    if system == "js":
        stem = _parts(_strip_suffix(path, _JS_SUFFIXES))
        keys = [("js", stem)]
        if stem and stem[-1] == "index":
            keys.append(("js", stem[:-1]))
        return tuple(keys)
    if system == "rs":
        parts = _parts(_strip_suffix(path, (".rs",)))
        components = parts[:-1] if parts and parts[-1] in _RS_ROOT_FILES else parts
    elif system == "c":
        components = _parts(path)
    elif system == "rb":
        components = _parts(_strip_suffix(path, (".rb",)))
    else:
        components = _parts(posixpath.dirname(path))
    return tuple((system, components[i:]) for i in range(len(components)))


def _python_package_name(path: str, full: tuple[str, ...], is_package: Callable[[str], bool]) -> tuple[str, ...]:
    """The dotted name Python itself would give: from the topmost folder of a chain of `__init__.py` folders."""
    folder = posixpath.dirname(path)
    top = folder
    while top and is_package(top):
        top = posixpath.dirname(top)
    if top == folder and posixpath.basename(path) != INIT_FILE:
        return full[-1:]  # not inside a package: a top-level module named after the file
    depth = len(_parts(top))
    return full[depth:]


def is_init_file(path: str, system: str | None) -> bool:
    """A Python `__init__.py`: its folder is a package while it exists."""
    return system == "py" and posixpath.basename(path) == INIT_FILE


def import_keys(spec: str, importer: str, system: str) -> list[ModuleKey]:
    """The module keys an import names, best first (the first key that has files wins)."""
    if system == "py":
        return [("py", c)] if (c := _python_spec(spec, importer)) is not None else []
    if system == "js":
        return _js_keys(spec, importer)
    if system == "rs":
        return _rust_keys(spec, importer)
    if system in ("c", "rb"):  # next to the including file first, then anywhere the path fits
        spec = _strip_suffix(spec, (".rb",)) if system == "rb" else spec
        beside = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
        keys = [] if beside.startswith("..") else [(system, _parts(beside))]
        return [*keys, (system, _parts(posixpath.normpath(spec)))]
    parts = tuple(p for p in spec.replace("/", ".").split(".") if p) if system == "jvm" else _parts(spec)
    if system == "go":  # the longest tail of the import path that is a folder of the workspace
        return [("go", parts[i:]) for i in range(len(parts))]
    return [(system, parts)] if parts else []


def submodule_spec(spec: str, name: str, system: str) -> str:
    """The import spec of a module inside another: `pkg` + `mod` → `pkg.mod`; `..` + `mod` → `..mod`."""
    if system == "py" and spec.endswith("."):
        return f"{spec}{name}"
    return f"{spec}{_SEPARATORS[system]}{name}"


def _python_spec(spec: str, importer: str) -> tuple[str, ...] | None:
    dots = len(spec) - len(spec.lstrip("."))
    rest = tuple(p for p in spec[dots:].split(".") if p)
    if dots == 0:
        return rest
    package = python_components(importer)
    if posixpath.basename(importer) != INIT_FILE:
        package = package[:-1]
    up = dots - 1
    if up > len(package):
        return None
    return package[: len(package) - up] + rest


def _js_keys(spec: str, importer: str) -> list[ModuleKey]:
    if spec.startswith("."):
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
        if joined.startswith(".."):
            return []
        return [("js", _parts(_strip_suffix(joined, _JS_SUFFIXES)))]
    return [("js", _parts(_strip_suffix(spec.lstrip("/"), _JS_SUFFIXES)))]


def _rust_keys(spec: str, importer: str) -> list[ModuleKey]:
    parts = [p for p in spec.split("::") if p]
    if not parts:
        return []
    if parts[0] in ("self", "super"):
        own = list(_parts(_strip_suffix(importer, (".rs",))))
        if own and own[-1] in _RS_ROOT_FILES:
            own.pop()
        while parts and parts[0] in ("self", "super"):
            if parts.pop(0) == "super" and own:
                own.pop()
        return [("rs", (*own, *parts))]
    if parts[0] == "crate":
        parts = parts[1:]
    return [("rs", tuple(parts))] if parts else []
