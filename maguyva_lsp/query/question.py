"""What a natural-language question names in code: its code-shaped words (`parseQuality`, `view_args`, `res.jsonp`,
`attrs.field(...)`), as the names a symbol table knows them by.

A question that names an identifier is about the code that defines it or uses it ("Added originalIndex to
parseQuality to sort long lists", "Fixed a bug, view_args not values"); the structural retriever answers such a
question with those definitions and uses before the definitions that merely share its words.
"""

from __future__ import annotations

import re

from maguyva_lsp.query.intent import is_code_shaped

# Dotted and `::` paths stay one word, so that `res.jsonp` is named by its last part.
_WORD_RE = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*")
MAX_NAMED = 8  # a question naming more is a pasted text rather than a question; its first names say enough


def named_identifiers(question: str) -> list[str]:
    """The names of the code-shaped words of a question, in order, without repeats: the last part of a dotted or `::`
    path (`res.jsonp` → `jsonp`), at least two characters long."""
    names: list[str] = []
    for match in _WORD_RE.finditer(question):
        word = match.group(0)
        if not is_code_shaped(word):
            continue
        name = re.split(r"\.|::", word)[-1]
        if len(name) > 1 and name not in names:
            names.append(name)
            if len(names) >= MAX_NAMED:
                break
    return names
