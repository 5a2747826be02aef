"""Choose the embedder from the settings: code leaves the machine only when the user named Voyage as the embedder."""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence

from maguyva_lsp.config import SecretStr, Settings
from maguyva_lsp.embed.base import Embedder, EmbedderError, Embeddings, TextStyle
from maguyva_lsp.embed.local import LOCAL_DIMENSION, LocalEmbedder

log = logging.getLogger(__name__)

VOYAGE_KEY_ENV = "VOYAGE_API_KEY"


def voyage_key(settings: Settings) -> SecretStr:
    """The key from the settings, else from the environment (empty when neither has one)."""
    if settings.voyage_api_key:
        return settings.voyage_api_key
    return SecretStr(os.environ.get(VOYAGE_KEY_ENV, "").strip())


def make_embedder(settings: Settings) -> tuple[Embedder, list[str]]:
    """The embedder the settings ask for, and messages for the user.

    A Voyage key in the environment alone is not consent: without `embedder == "voyage"` nothing is sent anywhere.
    Voyage chosen without a usable key (or without its client package) falls back to the local embedder, saying so.
    When the local model itself cannot load, an UnavailableEmbedder carries the reason: semantic search is off, the
    rest of the engine works.
    """
    messages: list[str] = []
    if settings.embedder == "voyage":
        key = voyage_key(settings)
        if not key:
            messages.append(
                f"Voyage was chosen as the embedder but no API key was given (voyageApiKey setting or "
                f"{VOYAGE_KEY_ENV}); using the local embedder, nothing leaves this machine"
            )
        else:
            from maguyva_lsp.embed.voyage import VoyageEmbedder

            try:
                return VoyageEmbedder(key, settings.voyage_model, settings.voyage_dimension), messages
            except EmbedderError as exc:
                messages.append(f"cannot use Voyage ({exc}); using the local embedder")
    try:
        embedder: Embedder = LocalEmbedder()
    except EmbedderError as exc:
        messages.append(f"semantic search is off: {exc}")
        embedder = UnavailableEmbedder(str(exc))
    for message in messages:
        log.warning("%s", message)
    return embedder, messages


class UnavailableEmbedder:
    """Stands in when no embedder can load: every call raises EmbedderError with the reason."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    @property
    def name(self) -> str:
        return "unavailable"

    @property
    def dimension(self) -> int:
        return LOCAL_DIMENSION

    @property
    def remote(self) -> bool:
        return False

    @property
    def text_style(self) -> TextStyle:
        return "words"

    def embed_documents(self, texts: Sequence[str]) -> Embeddings:
        raise EmbedderError(self.reason)

    def embed_query(self, text: str) -> Embeddings:
        raise EmbedderError(self.reason)
