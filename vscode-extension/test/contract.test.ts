// The extension's protocol types against the server's real answers: JSON written by the Python side
// (tests/unit/api/test_contract_fixtures.py, from a real index). A field whose type differs fails to compile; a field
// the server sends that protocol.ts does not declare, or a declared key list that misses a field, fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
    FUSION_STRATEGIES,
    HIT_EXPLAIN_KEYS,
    IMPACT_RESPONSE_KEYS,
    IMPACTED_SYMBOL_KEYS,
    MODALITY_CONTRIBUTION_KEYS,
    SEARCH_EXPLAIN_KEYS,
    SEARCH_HIT_KEYS,
    SEARCH_RESPONSE_KEYS,
    SKIPPED_MODALITY_KEYS,
    TEXT_MATCHES_KEYS,
    type HitExplain,
    type ImpactedSymbol,
    type ImpactResponse,
    type ModalityContribution,
    type SearchExplain,
    type SearchHit,
    type SearchResponse,
    type SkippedModality,
    type StatusResponse,
    type TextMatches,
} from '../src/core/protocol';
import impactFixture from './fixtures/contract/impact.json';
import impactUnknownFixture from './fixtures/contract/impact_unknown.json';
import searchFixture from './fixtures/contract/search.json';
import searchDegradedFixture from './fixtures/contract/search_degraded.json';
import searchExplainFixture from './fixtures/contract/search_explain.json';
import searchLiteralFixture from './fixtures/contract/search_literal.json';
import statusFixture from './fixtures/contract/status.json';

// TypeScript types a JSON array of objects as a union in which a field missing from some elements is `?: undefined`
// (`{text?: undefined}` in a result found by one retriever only); JSON has no undefined, so those are dropped.
type Json<T> = T extends readonly (infer E)[]
    ? Json<E>[]
    : T extends object
      ? { [K in keyof T as [Exclude<T[K], undefined>] extends [never] ? never : K]: Json<Exclude<T[K], undefined>> }
      : T;
function asJson<T>(value: T): Json<T> {
    return value as Json<T>;
}

// Compile time: each real answer must be assignable to the type the extension reads it as.
const searches: SearchResponse[] = [
    asJson(searchFixture),
    asJson(searchExplainFixture),
    asJson(searchDegradedFixture),
    asJson(searchLiteralFixture),
];
const impacts: ImpactResponse[] = [asJson(impactFixture), asJson(impactUnknownFixture)];
const status: StatusResponse = asJson(statusFixture);

// Compile time: each key list names every field of its type, and nothing else (`satisfies` in protocol.ts checks
// the other direction).
type Covers<T, L extends readonly PropertyKey[]> = [Exclude<keyof T, L[number]>] extends [never] ? true : false;
const covered: [
    Covers<SearchResponse, typeof SEARCH_RESPONSE_KEYS>,
    Covers<SearchHit, typeof SEARCH_HIT_KEYS>,
    Covers<HitExplain, typeof HIT_EXPLAIN_KEYS>,
    Covers<SkippedModality, typeof SKIPPED_MODALITY_KEYS>,
    Covers<SearchExplain, typeof SEARCH_EXPLAIN_KEYS>,
    Covers<ModalityContribution, typeof MODALITY_CONTRIBUTION_KEYS>,
    Covers<ImpactResponse, typeof IMPACT_RESPONSE_KEYS>,
    Covers<ImpactedSymbol, typeof IMPACTED_SYMBOL_KEYS>,
    Covers<TextMatches, typeof TEXT_MATCHES_KEYS>,
] = [true, true, true, true, true, true, true, true, true];

function fixture(name: string): Record<string, unknown> {
    // The same files as the imports above, read as the untyped JSON the server sends.
    const text = readFileSync(join(__dirname, '..', '..', 'test', 'fixtures', 'contract', `${name}.json`), 'utf8');
    return JSON.parse(text) as Record<string, unknown>;
}

function assertDeclared(value: unknown, keys: readonly string[], where: string): void {
    assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), `${where} is not an object`);
    for (const key of Object.keys(value)) {
        assert.ok(keys.includes(key), `${where}.${key} is sent by the server but not declared in protocol.ts`);
    }
}

test('the key lists cover their types', () => {
    assert.ok(covered.every(Boolean));
    assert.equal(searches.length + impacts.length, 6);
    assert.equal(typeof status.files, 'number');
});

test('every field of a search answer is declared, down to skipped modalities and explanations', () => {
    for (const name of ['search', 'search_explain', 'search_degraded', 'search_literal']) {
        const answer = fixture(name);
        assertDeclared(answer, SEARCH_RESPONSE_KEYS, name);
        if (answer.text_matches !== null && answer.text_matches !== undefined) {
            assertDeclared(answer.text_matches, TEXT_MATCHES_KEYS, `${name}.text_matches`);
        }
        assert.ok((FUSION_STRATEGIES as readonly unknown[]).includes(answer.fusion_strategy), `${name}.fusion_strategy`);
        if (answer.explain !== undefined) {
            assertDeclared(answer.explain, SEARCH_EXPLAIN_KEYS, `${name}.explain`);
        }
        for (const skipped of answer.modalities_skipped as unknown[]) {
            assertDeclared(skipped, SKIPPED_MODALITY_KEYS, `${name}.modalities_skipped[]`);
        }
        for (const hit of answer.results as Record<string, unknown>[]) {
            assertDeclared(hit, SEARCH_HIT_KEYS, `${name}.results[]`);
            for (const part of Object.values(hit.modalities as object)) {
                assertDeclared(part, MODALITY_CONTRIBUTION_KEYS, `${name}.results[].modalities`);
            }
            if (hit.explain !== undefined) {
                assertDeclared(hit.explain, HIT_EXPLAIN_KEYS, `${name}.results[].explain`);
            }
        }
    }
    const literal = fixture('search_literal').text_matches as TextMatches;
    assert.equal(literal.truncated, true, 'a broad literal with one result says its counts stopped early');
    assert.ok(literal.files_not_shown >= 1);
    const degraded = fixture('search_degraded');
    assert.deepEqual((degraded.modalities_skipped as SkippedModality[])[0], {
        modality: 'semantic',
        reason: 'the embedding model is still loading',
    });
});

test('every field of an impact answer is declared, and an unknown symbol says so in a note', () => {
    for (const name of ['impact', 'impact_unknown']) {
        const answer = fixture(name);
        assertDeclared(answer, IMPACT_RESPONSE_KEYS, name);
        for (const item of answer.impacted as unknown[]) {
            assertDeclared(item, IMPACTED_SYMBOL_KEYS, `${name}.impacted[]`);
        }
    }
    assert.equal(fixture('impact_unknown').symbol, null);
    assert.match(String(fixture('impact_unknown').note), /no symbol named/);
});
