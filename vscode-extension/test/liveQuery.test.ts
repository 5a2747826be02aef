import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Debouncer, LatestOnly, LiveQuery, type PendingRequest, type Timers } from '../src/core/liveQuery';

/** Timers driven by hand: `advance` runs what falls due. */
class ManualTimers implements Timers {
    private now = 0;
    private nextId = 1;
    private readonly due = new Map<number, { at: number; callback: () => void }>();

    setTimeout(callback: () => void, ms: number): unknown {
        const id = this.nextId++;
        this.due.set(id, { at: this.now + ms, callback });
        return id;
    }

    clearTimeout(handle: unknown): void {
        this.due.delete(handle as number);
    }

    advance(ms: number): void {
        this.now += ms;
        for (const [id, timer] of [...this.due].sort(([, a], [, b]) => a.at - b.at)) {
            if (timer.at <= this.now) {
                this.due.delete(id);
                timer.callback();
            }
        }
    }
}

interface Sent {
    query: string;
    resolve(answer: string): void;
    reject(error: Error): void;
    cancelled: boolean;
}

function harness(delayMs = 100) {
    const timers = new ManualTimers();
    const sent: Sent[] = [];
    const answers: string[] = [];
    const errors: string[] = [];
    const busy: boolean[] = [];
    let emptied = 0;
    const live = new LiveQuery<string>({
        delayMs,
        timers,
        send: (query): PendingRequest<string> => {
            let resolve!: (answer: string) => void;
            let reject!: (error: Error) => void;
            const promise = new Promise<string>((ok, fail) => {
                resolve = ok;
                reject = fail;
            });
            const record: Sent = { query, resolve, reject, cancelled: false };
            sent.push(record);
            return { promise, cancel: () => (record.cancelled = true) };
        },
        onAnswer: (query, answer) => answers.push(`${query}=${answer}`),
        onError: (query, error) => errors.push(`${query}!${(error as Error).message}`),
        onBusy: (value) => busy.push(value),
        onEmpty: () => (emptied += 1),
    });
    return { live, timers, sent, answers, errors, busy, emptied: () => emptied };
}

/** Lets settled promises run their callbacks. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('keystrokes within the debounce delay send one request for the final text', async () => {
    const h = harness();
    h.live.update('P');
    h.timers.advance(50);
    h.live.update('Pa');
    h.timers.advance(50);
    h.live.update('Parse ');
    assert.equal(h.sent.length, 0);
    h.timers.advance(100);
    assert.deepEqual(h.sent.map((s) => s.query), ['Parse']);
    h.sent[0]?.resolve('r1');
    await settle();
    assert.deepEqual(h.answers, ['Parse=r1']);
    // Busy from the first keystroke until the answer to the final text.
    assert.deepEqual(h.busy, [true, true, true, true, false]);
});

test('an answer that arrives after a newer query was sent is dropped, and the older request is cancelled', async () => {
    const h = harness();
    h.live.update('old');
    h.timers.advance(100);
    h.live.update('new');
    h.timers.advance(100);
    assert.equal(h.sent.length, 2);
    assert.equal(h.sent[0]?.cancelled, true);
    assert.equal(h.sent[1]?.cancelled, false);
    // The newer answer comes first; the stale one after it must not replace it.
    h.sent[1]?.resolve('fresh');
    await settle();
    h.sent[0]?.resolve('stale');
    await settle();
    assert.deepEqual(h.answers, ['new=fresh']);
    assert.equal(h.busy.at(-1), false);
});

test('errors of superseded requests are dropped too; the current one is reported', async () => {
    const h = harness();
    h.live.update('a');
    h.timers.advance(100);
    h.live.update('b');
    h.timers.advance(100);
    h.sent[0]?.reject(new Error('cancelled'));
    h.sent[1]?.reject(new Error('bad regex'));
    await settle();
    assert.deepEqual(h.errors, ['b!bad regex']);
    assert.deepEqual(h.answers, []);
});

test('clearing the text cancels what is pending and in flight and drops its answer', async () => {
    const h = harness();
    h.live.update('x');
    h.timers.advance(100);
    h.live.update('y');
    h.live.update('   ');
    h.timers.advance(500);
    assert.equal(h.sent.length, 1);
    assert.equal(h.sent[0]?.cancelled, true);
    assert.equal(h.emptied(), 1);
    h.sent[0]?.resolve('late');
    await settle();
    assert.deepEqual(h.answers, []);
    assert.equal(h.busy.at(-1), false);
});

test('refresh re-asks at once for the current text (a preset switch), superseding the earlier request', async () => {
    const h = harness();
    h.live.update('q');
    h.timers.advance(100);
    h.live.refresh();
    assert.deepEqual(h.sent.map((s) => s.query), ['q', 'q']);
    h.sent[0]?.resolve('standard');
    h.sent[1]?.resolve('thorough');
    await settle();
    assert.deepEqual(h.answers, ['q=thorough']);
});

test('after dispose nothing is sent or shown', async () => {
    const h = harness();
    h.live.update('q');
    h.timers.advance(100);
    h.live.dispose();
    h.live.update('later');
    h.timers.advance(100);
    h.sent[0]?.resolve('r');
    await settle();
    assert.equal(h.sent.length, 1);
    assert.deepEqual(h.answers, []);
});

test('LatestOnly and Debouncer on their own', () => {
    const latest = new LatestOnly();
    const first = latest.begin();
    assert.equal(latest.isCurrent(first), true);
    const second = latest.begin();
    assert.equal(latest.isCurrent(first), false);
    latest.invalidate();
    assert.equal(latest.isCurrent(second), false);

    const timers = new ManualTimers();
    const debouncer = new Debouncer(10, timers);
    let runs = 0;
    debouncer.schedule(() => (runs += 1));
    assert.equal(debouncer.pending, true);
    debouncer.cancel();
    timers.advance(20);
    assert.equal(runs, 0);
    debouncer.schedule(() => (runs += 1));
    timers.advance(10);
    assert.equal(runs, 1);
    assert.equal(debouncer.pending, false);
});
