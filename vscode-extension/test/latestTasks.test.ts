import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LatestTasks } from '../src/core/latestTasks';

function deferred(): { promise: Promise<void>; resolve: () => void } {
    let resolve!: () => void;
    const promise = new Promise<void>((ok) => (resolve = ok));
    return { promise, resolve };
}

/** A task that only notes that it ran. */
function record(log: string[], label: string): () => Promise<void> {
    return () => {
        log.push(label);
        return Promise.resolve();
    };
}

test('a slow task finishes before the next starts, and tasks superseded while waiting are skipped', async () => {
    const log: string[] = [];
    const tasks = new LatestTasks((error) => log.push(`error ${String(error)}`));
    const slow = deferred();
    void tasks.push(async () => {
        log.push('A start');
        await slow.promise;
        log.push('A end');
    });
    // Let A start: it is running, not waiting, when B and C are queued.
    await new Promise((resolve) => setImmediate(resolve));
    void tasks.push(record(log, 'B'));
    const last = tasks.push(record(log, 'C'));
    slow.resolve();
    await last;
    assert.deepEqual(log, ['A start', 'A end', 'C']);
});

test('of a burst queued at once only the last runs', async () => {
    const log: string[] = [];
    const tasks = new LatestTasks(() => undefined);
    void tasks.push(record(log, '1'));
    void tasks.push(record(log, '2'));
    await tasks.push(record(log, '3'));
    assert.deepEqual(log, ['3']);
});

test('a failing task is reported and does not stop the queue; cancel skips what waits', async () => {
    const log: string[] = [];
    const tasks = new LatestTasks((error) => log.push(`error ${(error as Error).message}`));
    await tasks.push(() => Promise.reject(new Error('no such file')));
    await tasks.push(record(log, 'after'));
    const gate = deferred();
    void tasks.push(() => gate.promise);
    const waiting = tasks.push(record(log, 'cancelled'));
    tasks.cancel();
    gate.resolve();
    await waiting;
    assert.deepEqual(log, ['error no such file', 'after']);
});
