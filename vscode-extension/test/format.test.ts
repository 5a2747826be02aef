import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    firstSnippetLine,
    kindIcon,
    modalitySummary,
    paletteEntry,
    relativePath,
    searchTitle,
} from '../src/core/format';
import type { SearchHit, SearchResponse } from '../src/core/protocol';

const ROOT = 'file:///home/dev/project';

function hit(overrides: Partial<SearchHit> = {}): SearchHit {
    return {
        uri: `${ROOT}/pkg/config.go`,
        range: { start: { line: 11, character: 5 }, end: { line: 11, character: 16 } },
        symbol: 'ParseConfig',
        kind: 'function',
        score: 0.0146,
        snippet: '\n  func ParseConfig(path string) (*Config, error) {\n',
        modalities: { text: { rank: 2, contribution: 0.004 }, structural: { rank: 0, contribution: 0.0106 } },
        ...overrides,
    };
}

function response(overrides: Partial<SearchResponse> = {}): SearchResponse {
    return {
        intent: 'find_definition',
        confidence: 0.95,
        target: 'ParseConfig',
        fusion_strategy: 'direct',
        modalities: ['structural'],
        results: [hit()],
        elapsed_ms: 3.14,
        ...overrides,
    };
}

test('kind icons map known kinds, fall back for unknown ones and mark chunks', () => {
    assert.equal(kindIcon('function'), 'symbol-function');
    assert.equal(kindIcon('Method'), 'symbol-method');
    assert.equal(kindIcon('struct'), 'symbol-struct');
    assert.equal(kindIcon('call'), 'call-outgoing');
    assert.equal(kindIcon('gizmo'), 'symbol-misc');
    assert.equal(kindIcon(null), 'symbol-misc');
    assert.equal(kindIcon('function', false), 'file-code');
});

test('paths are relative to the containing folder; multi-root paths name the folder', () => {
    assert.equal(relativePath(`${ROOT}/pkg/config.go`, [ROOT]), 'pkg/config.go');
    assert.equal(relativePath(`${ROOT}/pkg/config.go`, [`${ROOT}/`]), 'pkg/config.go');
    assert.equal(relativePath(`${ROOT}/a%20b/c.rs`, [ROOT, 'file:///other']), 'project/a b/c.rs');
    // The longest containing folder wins (nested folders in one workspace).
    assert.equal(relativePath(`${ROOT}/pkg/config.go`, [ROOT, `${ROOT}/pkg`]), 'pkg/config.go');
    assert.equal(relativePath('file:///elsewhere/x.py', [ROOT]), '/elsewhere/x.py');
    // A folder that merely shares a prefix does not contain the file.
    assert.equal(relativePath('file:///home/dev/project2/x.py', [ROOT]), '/home/dev/project2/x.py');
    // Malformed percent-encoding is shown as it is rather than throwing.
    assert.equal(relativePath(`${ROOT}/100%.txt`, [ROOT]), '100%.txt');
});

test('a symbol hit shows icon, name, path:line (1-based), kind, score, modalities by contribution and the snippet', () => {
    const entry = paletteEntry(hit(), [ROOT]);
    assert.equal(entry.label, '$(symbol-function) ParseConfig');
    assert.equal(entry.description, 'pkg/config.go:12');
    assert.equal(entry.detail, 'function · score 0.0146 · structural #1 · text #3 — func ParseConfig(path string) (*Config, error) {');
});

test('a chunk hit without a symbol is labelled by its first code line', () => {
    const entry = paletteEntry(hit({ symbol: null, kind: null, snippet: '\n\n    retries := 3 // budget\n', modalities: {} }), [ROOT]);
    assert.equal(entry.label, '$(file-code) retries := 3 // budget');
    assert.equal(entry.detail, 'code · score 0.0146');
    const bare = paletteEntry(hit({ symbol: '', kind: null, snippet: null, modalities: undefined }), [ROOT]);
    assert.equal(bare.label, '$(file-code) config.go:12');
});

test('long snippet lines are cut with an ellipsis', () => {
    const line = firstSnippetLine(`x = "${'a'.repeat(300)}"`);
    assert.equal(line.length, 120);
    assert.ok(line.endsWith('…'));
    assert.equal(firstSnippetLine(undefined), '');
});

test('modality summary orders by contribution and shows 1-based ranks', () => {
    assert.equal(
        modalitySummary({ semantic: { rank: 4, contribution: 0.001 }, graph: { rank: 0, contribution: 0.02 } }),
        'graph #1 · semantic #5',
    );
    assert.equal(modalitySummary(undefined), '');
});

test('the title names intent, confidence, strategy, preset, count and time, and says when results are partial', () => {
    assert.equal(
        searchTitle(response(), 'standard'),
        'Maguyva: find definition 95% · direct · standard · 1 result in 3 ms',
    );
    const partial = searchTitle(
        response({ intent: 'conceptual', confidence: 0.6, fusion_strategy: 'rrf', results: [hit(), hit()], partial: true, elapsed_ms: 41.6 }),
        'thorough',
    );
    assert.equal(partial, 'Maguyva: conceptual 60% · rrf · thorough · 2 results in 42 ms · partial: still indexing');
});
