import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MASK, redact } from '../src/core/redact';

test('every occurrence of a secret is masked, in plain text and inside JSON', () => {
    const key = 'pa-AbCdEf0123456789';
    const trace = `Params: ${JSON.stringify({ initializationOptions: { voyageApiKey: key, limit: 20 } })} and again ${key}`;
    const clean = redact(trace, [key]);
    assert.ok(!clean.includes(key));
    assert.equal(clean.split(MASK).length - 1, 2);
    assert.match(clean, /"limit":20/);
});

test('empty or very short secrets are not used as masks', () => {
    assert.equal(redact('a short line', ['', undefined, 'a']), 'a short line');
});
