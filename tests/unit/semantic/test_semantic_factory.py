"""Which embedder the settings give: code leaves the machine only when the user named Voyage."""

from __future__ import annotations

from pathlib import Path

import pytest

from maguyva_lsp.config import SecretStr, Settings
from maguyva_lsp.embed import factory
from maguyva_lsp.embed.base import EmbedderError
from maguyva_lsp.embed.factory import UnavailableEmbedder, make_embedder
from maguyva_lsp.embed.local import LocalEmbedder
from maguyva_lsp.embed.voyage import VoyageEmbedder


def test_local_is_the_default_even_with_a_key_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VOYAGE_API_KEY", "pa-env-key")
    embedder, messages = make_embedder(Settings())
    assert isinstance(embedder, LocalEmbedder) and not embedder.remote
    assert messages == []
    embedder, _ = make_embedder(Settings(voyage_api_key=SecretStr("pa-settings-key")))
    assert isinstance(embedder, LocalEmbedder), "a key alone is not consent"


def test_voyage_when_chosen_with_a_key_from_settings_or_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VOYAGE_API_KEY", raising=False)
    embedder, messages = make_embedder(
        Settings(embedder="voyage", voyage_api_key=SecretStr("pa-k"), voyage_dimension=512)
    )
    assert isinstance(embedder, VoyageEmbedder) and embedder.remote and embedder.dimension == 512
    assert messages == []
    monkeypatch.setenv("VOYAGE_API_KEY", "pa-from-env")
    embedder, _ = make_embedder(Settings(embedder="voyage"))
    assert isinstance(embedder, VoyageEmbedder)


def test_voyage_without_a_key_falls_back_to_local_with_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VOYAGE_API_KEY", raising=False)
    embedder, messages = make_embedder(Settings(embedder="voyage"))
    assert isinstance(embedder, LocalEmbedder)
    assert len(messages) == 1 and "no API key" in messages[0] and "local" in messages[0]


def test_an_unloadable_local_model_leaves_semantic_search_off_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def broken() -> LocalEmbedder:
        return LocalEmbedder(package_dir=tmp_path)

    monkeypatch.setattr(factory, "LocalEmbedder", broken)
    embedder, messages = make_embedder(Settings())
    assert isinstance(embedder, UnavailableEmbedder)
    assert "semantic search is off" in messages[0]
    with pytest.raises(EmbedderError, match="cannot load"):
        embedder.embed_query("x")
