"""The request contract: the one seam between the doors (language server, CLI, batch, MCP) and the engine.

Each door parses its wire format into a typed request here (`requests.py`, validated once, one error message per
mistake), hands it to `WorkspaceSet.handle` (`workspace.py`), and prints the typed answer back (`answers.py`, one
`to_json` each; `render.py` for text). Nothing else checks or reshapes a request or an answer.
"""

from maguyva_lsp.api.answers import (
    Answer,
    ImpactAnswer,
    ImpactedItem,
    Location,
    LocationsAnswer,
    ReindexAnswer,
    StatusAnswer,
    SymbolItem,
    SymbolsAnswer,
)
from maguyva_lsp.api.columns import CODE_POINTS, ColumnCodec
from maguyva_lsp.api.errors import InvalidRequestError, UnavailableError
from maguyva_lsp.api.requests import (
    METHODS,
    DefinitionRequest,
    ImpactRequest,
    Place,
    ReferencesRequest,
    ReindexRequest,
    Request,
    SearchRequest,
    StatusRequest,
    SymbolsRequest,
    parse_request,
)
from maguyva_lsp.model import MatchCounts
from maguyva_lsp.rank.response import SearchResponse, SearchResult

__all__ = [
    "CODE_POINTS",
    "METHODS",
    "Answer",
    "ColumnCodec",
    "DefinitionRequest",
    "ImpactAnswer",
    "ImpactRequest",
    "ImpactedItem",
    "InvalidRequestError",
    "Location",
    "LocationsAnswer",
    "MatchCounts",
    "Place",
    "ReferencesRequest",
    "ReindexAnswer",
    "ReindexRequest",
    "Request",
    "SearchRequest",
    "SearchResponse",
    "SearchResult",
    "StatusAnswer",
    "StatusRequest",
    "SymbolItem",
    "SymbolsAnswer",
    "SymbolsRequest",
    "UnavailableError",
    "parse_request",
]
