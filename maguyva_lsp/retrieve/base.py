"""The one small interface every retriever implements; fusion sees only their ranked lists."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from maguyva_lsp.model import ChangeBatch, Hit, Modality, RetrievalQuery, RetrieverStatus


class RetrieverError(Exception):
    """A retriever could not answer this query; the message is shown to the user as the reason."""


@runtime_checkable
class Retriever(Protocol):
    """A modality: a name, a ranked search, and incremental maintenance from batches of file changes.

    `search` may be called from several threads at once; `apply` is called by one writer at a time and
    must leave the retriever answering either the old or the new state, never a mix that crashes.
    """

    @property
    def name(self) -> Modality: ...

    def search(self, query: RetrievalQuery, limit: int) -> list[Hit]:
        """Best first. Raise RetrieverError for a query this retriever rejects (e.g. a bad regex)."""
        ...

    def apply(self, batch: ChangeBatch) -> None:
        """Index the batch's updated files (replacing their old state) and forget its removed paths."""
        ...

    def status(self) -> RetrieverStatus: ...
