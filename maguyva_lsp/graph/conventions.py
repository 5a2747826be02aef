"""What resolution assumes of each language: receiver names meaning the current object, where methods live, and
which names belong to the language's built-ins rather than to the project."""

from __future__ import annotations

import builtins
import io

# Receivers that mean the current object (`@` is Ruby's instance-variable sigil, `Self` Rust's own type).
SELF_NAMES = frozenset({"self", "this", "cls", "Self", "@"})
# Languages where a method body sees its class's members without `this.` (Java `g()` means `this.g()`).
IMPLICIT_MEMBER_LANGUAGES = frozenset({"java", "csharp", "kotlin", "scala", "cpp", "swift", "dart", "ruby"})
# Languages whose methods may sit in another file than their type (Go: any file of the package; Rust: `impl`).
DETACHED_METHOD_LANGUAGES = frozenset({"go", "rust"})
PYTHON_BUILTINS = frozenset(dir(builtins))
# `obj.name()` with an unknown `obj` is not guessed when `name` is a method of the language's built-in types:
# `.split()`, `.keys()`, `.append()`, `.then()` are far more often the built-in's than a project method of that name.
_PYTHON_BUILTIN_TYPES = (str, bytes, bytearray, list, tuple, dict, set, frozenset, int, float, complex, object, type)
_PYTHON_IO_TYPES = (io.StringIO, io.BytesIO, io.TextIOWrapper, io.BufferedReader, io.BufferedWriter, io.FileIO)
BUILTIN_METHODS: dict[str, frozenset[str]] = {
    "py": frozenset(name for kind in (*_PYTHON_BUILTIN_TYPES, *_PYTHON_IO_TYPES) for name in dir(kind)),
    "js": frozenset(
        """
        at concat copyWithin entries every fill filter find findIndex findLast findLastIndex flat flatMap forEach
        includes indexOf join keys lastIndexOf map pop push reduce reduceRight reverse shift slice some sort splice
        toString unshift values charAt charCodeAt codePointAt endsWith localeCompare match matchAll normalize padEnd
        padStart repeat replace replaceAll search split startsWith substring toLowerCase toUpperCase trim trimEnd
        trimStart then catch finally get set has delete clear add size apply bind call hasOwnProperty valueOf toJSON
        toFixed toISOString getTime addEventListener removeEventListener dispatchEvent querySelector
        querySelectorAll getElementById appendChild removeChild setAttribute getAttribute emit on off once
        """.split()
    ),
}
