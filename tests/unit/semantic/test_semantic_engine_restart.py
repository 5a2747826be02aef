"""The vectors through the real engine: a warm start embeds nothing and answers as before; an edit embeds only the
changed chunk; the vectors survive in the store whatever the engine does with them in between."""

from __future__ import annotations

from pathlib import Path

from maguyva_lsp.config import Settings
from maguyva_lsp.engine import Engine

FILES = {
    "app/mail.py": (
        "import smtplib\n\n\ndef send_email(to, body):\n"
        '    """Deliver a message to a recipient through the SMTP server."""\n'
        '    server = smtplib.SMTP("localhost")\n    server.sendmail("me", [to], body)\n'
    ),
    "app/sums.py": (
        'import zlib\n\n\ndef checksum(data):\n    """CRC32 of a byte string."""\n    return zlib.crc32(data)\n'
    ),
    "app/conf.py": (
        "import configparser\n\n\nclass Loader:\n    def read_config(self, path):\n"
        '        """Parse an INI configuration file into sections."""\n'
        "        parser = configparser.ConfigParser()\n        parser.read(path)\n        return parser\n"
    ),
}
QUESTIONS = ("how are emails delivered", "checksum of bytes", "parse the configuration file")


def _engine(root: Path, tmp_path: Path) -> Engine:
    return Engine(root, Settings(index_dir=str(tmp_path / "index"), preset="quick"))


def _answers(engine: Engine) -> list[list[tuple[str, int, float]]]:
    out = []
    for question in QUESTIONS:
        results = engine.search(question, limit=10).to_json()["results"]
        out.append([(r["uri"], r["range"]["start"]["line"], round(r["score"], 9)) for r in results])
    return out


def test_a_warm_start_embeds_nothing_and_an_edit_embeds_one_chunk(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    first = _engine(root, tmp_path)
    first.index()
    chunks = first.semantic.chunk_count
    assert first.semantic.embedded_texts == chunks > 0
    before = _answers(first)
    first.close()

    warm = _engine(root, tmp_path)
    warm.index()
    assert warm.semantic.embedded_texts == 0 and warm.semantic.chunk_count == chunks
    assert _answers(warm) == before
    warm.close()

    (root / "app/sums.py").write_text(FILES["app/sums.py"].replace("CRC32 of", "The CRC32 checksum of"))
    edited = _engine(root, tmp_path)
    edited.index()
    assert edited.semantic.embedded_texts == 1 and edited.semantic.chunk_count == chunks
    edited.close()
