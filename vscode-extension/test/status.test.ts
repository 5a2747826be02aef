import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatCount, indexedView, phaseView, progressView, statusLines } from '../src/core/status';

test('progress shows a spinner, the percentage and the server message', () => {
    assert.deepEqual(progressView({ title: 'Indexing', message: '120/400 files', percentage: 30.4 }), {
        text: '$(sync~spin) Maguyva: indexing 30%',
        tooltip: 'Maguyva — Indexing: 120/400 files',
    });
    assert.equal(progressView({}).text, '$(sync~spin) Maguyva: indexing');
});

test('after indexing the counts of files and symbols, with separators and singulars', () => {
    const view = indexedView({ indexing: false, files: 1, symbols: 12345 });
    assert.equal(view.text, '$(database) Maguyva: 1 file · 12,345 symbols');
    assert.match(view.tooltip, /Click for details/);
    assert.equal(indexedView({ indexing: true, files: 3, symbols: 0 }).text, '$(sync~spin) Maguyva: indexing · 3 files · 0 symbols');
    assert.equal(formatCount(1234567.4), '1,234,567');
});

test('server phases have their own texts', () => {
    assert.match(phaseView('starting').text, /starting/);
    assert.equal(phaseView('failed', 'not installed').tooltip, 'not installed');
    assert.match(phaseView('stopped').text, /stopped/);
});

test('nested entries such as per-folder counts get a line each with their plain fields', () => {
    const lines = statusLines({
        indexing: false,
        files: 4,
        symbols: 4,
        folders: [
            { root: '/ws/a', files: 3, indexing: false, counters: { analyzed: 3 } },
            { root: '/ws/b', files: 1, indexing: true },
        ],
        store: { path: '/cache/x', schema_version: 2 },
    });
    assert.deepEqual(lines.slice(3), [
        { label: 'folders 1', value: 'root /ws/a · files 3 · indexing no' },
        { label: 'folders 2', value: 'root /ws/b · files 1 · indexing yes' },
        { label: 'store', value: 'path /cache/x · schema version 2' },
    ]);
});

test('status details list known fields first, then the rest alphabetically', () => {
    const lines = statusLines({
        zeta: [1, 2],
        symbols: 40,
        indexing: false,
        files: 12,
        embedder: 'local',
        elapsed_s: 1.234,
        chunks: 1200,
        index_dir: null,
    });
    assert.deepEqual(lines, [
        { label: 'indexing', value: 'no' },
        { label: 'files', value: '12' },
        { label: 'chunks', value: '1,200' },
        { label: 'symbols', value: '40' },
        { label: 'embedder', value: 'local' },
        { label: 'elapsed s', value: '1.23' },
        { label: 'index dir', value: '—' },
        { label: 'zeta', value: '[1,2]' },
    ]);
});
