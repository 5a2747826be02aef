import assert from 'node:assert/strict';
import { test } from 'node:test';
import { depthLabel, groupByDepth, impactDescription, impactSummary } from '../src/core/impact';
import type { ImpactedSymbol } from '../src/core/protocol';

const ROOT = 'file:///ws';

function impacted(symbol: string, file: string, line: number, depth: number): ImpactedSymbol {
    return {
        uri: `${ROOT}/${file}`,
        range: { start: { line, character: 0 }, end: { line, character: 4 } },
        symbol,
        depth,
    };
}

test('impacted symbols are grouped by ascending depth, each group sorted by file then line', () => {
    const groups = groupByDepth([
        impacted('serve', 'server.go', 40, 2),
        impacted('main', 'main.go', 9, 1),
        impacted('load', 'config.go', 30, 1),
        impacted('handler', 'server.go', 10, 2),
        impacted('init', 'config.go', 2, 1),
    ]);
    assert.deepEqual(
        groups.map((group) => [group.depth, group.label, group.items.map((item) => item.symbol)]),
        [
            [1, 'Direct dependents (3)', ['init', 'load', 'main']],
            [2, 'Depth 2 (2)', ['handler', 'serve']],
        ],
    );
});

test('a symbol reached at several depths is listed once, at its smallest depth', () => {
    const groups = groupByDepth([impacted('main', 'main.go', 9, 3), impacted('main', 'main.go', 9, 1)]);
    assert.equal(groups.length, 1);
    assert.equal(groups[0]?.depth, 1);
    assert.deepEqual(groupByDepth([]), []);
});

test('labels, descriptions and summaries', () => {
    assert.equal(depthLabel(0, 1), 'The symbol itself (1)');
    assert.equal(depthLabel(4, 2), 'Depth 4 (2)');
    assert.equal(impactDescription(impacted('main', 'cmd/main.go', 9, 1), [ROOT]), 'cmd/main.go:10');
    assert.equal(impactSummary('ParseConfig', 1), '1 symbol impacted by ParseConfig');
    assert.equal(impactSummary('ParseConfig', 5), '5 symbols impacted by ParseConfig');
    assert.equal(impactSummary(null, 0), 'Nothing in the index depends on this symbol.');
    const note = '31 definitions are named reset: a use by that name alone (obj.reset(...)) cannot be told to mean this one';
    assert.equal(impactSummary('Decoder.reset', 0, note), `No known dependents of Decoder.reset. ${note}.`);
    assert.equal(impactSummary('Decoder.reset', 2, note), `2 symbols impacted by Decoder.reset. ${note}.`);
});
