"""LineIndex.positions: byte ranges to spans with arrays must give what tree-sitter's points give, node by node
(reference extraction relies on it instead of asking each node for its points)."""

from __future__ import annotations

import numpy as np
import pytest
from tree_sitter import Node

from maguyva_lsp.parse.languages import parser_for
from maguyva_lsp.parse.positions import LineIndex

SOURCES = {
    "ascii": b"import os\n\ndef f(a, b):\n    return os.path.join(a,\n        b)\n",
    "non-ascii": "größe = 1\nclass Prüfer:\n    zähler = 'ä' + \"€𝄞\"\n\tdef prüfe(self): return größe\n".encode(),
    "crlf": b"x = 1\r\ny = x\r\n\r\nz = [x,\r\n y]\r\n",
    # Invalid UTF-8 (a lone continuation byte, a truncated sequence): columns count replacement characters.
    "invalid": b"s = '\x80'\nt = '\xe2\x82' + s\nu = t\n",
    "no final newline": "a = 'é'\nb = a".encode(),
}


def _nodes(root: Node) -> list[Node]:
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(node.children)
    return out


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_positions_match_the_points_of_every_node(name: str) -> None:
    source = SOURCES[name]
    parser = parser_for("python")
    assert parser is not None
    nodes = _nodes(parser.parse(source).root_node)
    index = LineIndex(source)
    begins = np.array([n.start_byte for n in nodes], dtype=np.int64)
    ends = np.array([n.end_byte for n in nodes], dtype=np.int64)
    columns = [c.tolist() for c in index.positions(begins, ends)]
    assert list(zip(*columns, strict=True)) == [index.position(n) for n in nodes]


def test_offsets_inside_a_character_fall_back_to_decoding() -> None:
    source = "é = 1\n".encode()
    index = LineIndex(source)
    # Byte 1 is inside `é`: the decoded prefix holds one replacement character, as `column` counts it.
    columns = index.positions(np.array([1], dtype=np.int64), np.array([2], dtype=np.int64))
    assert [c.tolist() for c in columns] == [[0], [index.column(0, 1)], [0], [index.column(0, 2)]]
