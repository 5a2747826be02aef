import assert from 'node:assert/strict';
import { test } from 'node:test';
import { definitionAction, othersFoundNothing, positionKey, ProbeGuard } from '../src/core/definition';

test('the policy: off never answers, always answers, whenNoOtherProvider probes; a probe call never answers', () => {
    assert.equal(definitionAction('off', false), 'skip');
    assert.equal(definitionAction('always', false), 'answer');
    assert.equal(definitionAction('whenNoOtherProvider', false), 'probe');
    for (const mode of ['off', 'always', 'whenNoOtherProvider'] as const) {
        assert.equal(definitionAction(mode, true), 'skip');
    }
});

test('the probe result decides: nothing from others means we answer', () => {
    assert.equal(othersFoundNothing(undefined), true);
    assert.equal(othersFoundNothing(null), true);
    assert.equal(othersFoundNothing([]), true);
    assert.equal(othersFoundNothing([{ uri: 'file:///a' }]), false);
});

/** What the middleware does, reduced to the guard: a probe that re-enters the provider for the same position. */
async function provide(guard: ProbeGuard, key: string, othersAnswer: boolean, calls: string[]): Promise<string | undefined> {
    const action = definitionAction('whenNoOtherProvider', guard.isProbing(key));
    calls.push(action);
    if (action !== 'probe') {
        return undefined;
    }
    const found = await guard.run(key, async () => {
        // The probe runs every provider: ours (re-entered) and the others.
        const ours = await provide(guard, key, othersAnswer, calls);
        return [ours, othersAnswer ? 'other' : undefined].filter((x) => x !== undefined);
    });
    return othersFoundNothing(found) ? 'maguyva' : undefined;
}

test('the guard stops the probe from recursing into our own provider and from counting our answer', async () => {
    const guard = new ProbeGuard();
    const key = positionKey('file:///ws/main.go', 3, 7);
    const calls: string[] = [];
    assert.equal(await provide(guard, key, false, calls), 'maguyva');
    assert.deepEqual(calls, ['probe', 'skip']);
    assert.equal(guard.isProbing(key), false);
    assert.equal(await provide(guard, key, true, []), undefined);
});

test('overlapping probes of one position keep it marked until the last ends; a failing probe unmarks it', async () => {
    const guard = new ProbeGuard();
    const key = positionKey('file:///x', 0, 0);
    let releaseFirst!: () => void;
    const first = guard.run(key, () => new Promise<void>((resolve) => (releaseFirst = resolve)));
    const second = guard.run(key, async () => {
        await Promise.resolve();
    });
    await second;
    assert.equal(guard.isProbing(key), true);
    releaseFirst();
    await first;
    assert.equal(guard.isProbing(key), false);
    await assert.rejects(guard.run(key, () => Promise.reject(new Error('provider crashed'))));
    assert.equal(guard.isProbing(key), false);
    assert.equal(guard.isProbing(positionKey('file:///x', 0, 1)), false);
});
