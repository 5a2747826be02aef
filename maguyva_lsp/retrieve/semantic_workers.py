"""A cold build's embedding in worker processes: each job reads a group of stored files (their text and chunks, from
the mapped core containers), plans their rows and embeds them as the semantic retriever would, and sends back only
the rows (references and packed vectors); the retriever takes them with `apply_rows`.

Done in the writer's process, the catch-up after a cold build decoded every stored analysis and built every
embedded text under the interpreter lock of one process (about 20 s CPU on the standard library, one core); here the
pool's cores share it, and the memory it takes (decoded analyses, texts, the tokenizer's buffers) leaves with the
workers. The rows are the same: the same plan (`planned_rows`), the same tag, each distinct text embedded once by
the same local model (a text's vector does not depend on what it is embedded with).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from maguyva_lsp.embed.base import Embedder, Embeddings
from maguyva_lsp.heap import paused_collector
from maguyva_lsp.index.graph_inputs import StoredGraphFiles
from maguyva_lsp.index.vector_part import FileRows, RowVectors
from maguyva_lsp.retrieve.semantic import file_tag, fresh_vectors, planned_columns

# Files per job: enough to amortise a job's pickling, few enough that the jobs spread evenly over the workers and
# that a job's texts stay small (about 30 chunks a file).
EMBED_JOB_FILES = 128
# The last files go in smaller jobs: the workers then end within a small job of each other (with jobs of 128 files,
# ~0.4 s each, one core waited half a job on average at the end of a cold build, the index's last step).
EMBED_TAIL_JOBS = 4
EMBED_TAIL_JOB_FILES = 32

# A worker's embedder, made at its first job (loading the model costs ~0.3 s) and kept for the next ones; keyed by
# the pickled factory (each job unpickles a factory of its own).
_worker_embedders: dict[bytes, Embedder] = {}
# The stored files a worker's last job read, kept for its next jobs: each job unpickles a view of its own, and a fresh
# view maps the containers and decodes their string pool again (~0.2 s a job on the stdlib's merged segment, a third
# of the job's reading). One view is kept: the next build's jobs name other containers.
_worker_stored: dict[tuple[object, ...], StoredGraphFiles] = {}


@dataclass(frozen=True, slots=True)
class EmbedJob:
    stored: StoredGraphFiles  # the stored files, as a worker opens them
    paths: tuple[str, ...]
    embedder: Callable[[], Embedder]  # picklable (SemanticRetriever.worker_embedder)


@dataclass(frozen=True, slots=True)
class EmbeddedRows:
    files: tuple[FileRows, ...]
    vectors: RowVectors  # the rows of `files`, in order
    embedded: int  # distinct texts embedded


def embed_jobs(stored: StoredGraphFiles, paths: Sequence[str], embedder: Callable[[], Embedder]) -> list[EmbedJob]:
    """The files cut into jobs of EMBED_JOB_FILES, the last EMBED_TAIL_JOBS jobs' worth into jobs of
    EMBED_TAIL_JOB_FILES."""
    tail = max(0, len(paths) - EMBED_TAIL_JOBS * EMBED_JOB_FILES)
    bounds = [*range(0, tail, EMBED_JOB_FILES), *range(tail, len(paths), EMBED_TAIL_JOB_FILES), len(paths)]
    return [EmbedJob(stored, tuple(paths[at:end]), embedder) for at, end in pairwise(bounds)]


@paused_collector
def embed_stored(job: EmbedJob) -> EmbeddedRows:
    """Run in a worker: the rows of the job's files, embedded. With the cyclic collector paused (heap.py): a job
    allocates tens of thousands of objects (decoded chunks, texts, the split caches' new entries) and makes no
    cycles, yet the collections they trigger rescan the worker's heap (a cold stdlib build: 0.34 s CPU of the
    workers' collections under embed_stored, 7 of them full)."""
    key = pickle.dumps(job.embedder)
    embedder = _worker_embedders.get(key)
    if embedder is None:
        embedder = _worker_embedders[key] = job.embedder()
    style = embedder.text_style
    files: list[FileRows] = []
    keys: list[bytes] = []
    texts: list[str] = []
    for analysis in _opened(job.stored).analyses(job.paths):
        # nothing to reuse: the files are new to the vectors
        columns, file_keys, file_texts = planned_columns(analysis, style)
        files.append(FileRows(analysis.path, file_tag(analysis, style), analysis.content_hash, columns))
        keys += file_keys
        texts += file_texts
    embedded = 0

    def embed_slice(slice_keys: list[bytes], by_key: Mapping[bytes, str]) -> Embeddings:
        nonlocal embedded
        embedded += len(slice_keys)
        return embedder.embed_documents([by_key[key] for key in slice_keys])

    vectors = fresh_vectors(keys, texts, embed_slice, embedder.dimension)
    return EmbeddedRows(tuple(files), vectors, embedded)


def joined_rows(results: Sequence[EmbeddedRows], dimension: int) -> EmbeddedRows:
    """The jobs' rows as one batch, in job order: applied at once, they make one part of the vectors (applied job by
    job, each job's part was merged into the chain in turn, rewriting its rows about log2(jobs) times: 0.5 against
    0.14 s on the stdlib, serial at the end of a cold build). The stored rows are the same."""
    return EmbeddedRows(
        tuple(file for result in results for file in result.files),
        RowVectors.concat([result.vectors for result in results], dimension),
        sum(result.embedded for result in results),
    )


def _opened(stored: StoredGraphFiles) -> StoredGraphFiles:
    """The worker's open view of these stored files (the same containers, the same places), else this one."""
    key = (*stored.cores, *stored.where.items())
    held = _worker_stored.get(key)
    if held is None:
        _worker_stored.clear()
        held = _worker_stored[key] = stored
    return held
