// Search as you type: debounce keystrokes, cancel superseded requests and drop answers that arrive after a newer query.

/** Wait after the last keystroke before asking the server; short enough to feel live, long enough to skip most
 *  intermediate prefixes of a word typed at normal speed. */
export const DEFAULT_DEBOUNCE_MS = 120;

export interface Timers {
    setTimeout(callback: () => void, ms: number): unknown;
    clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
    setTimeout: (callback, ms) => setTimeout(callback, ms),
    clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Numbers requests so that only the answer to the most recent one is used. */
export class LatestOnly {
    private issued = 0;

    begin(): number {
        this.issued += 1;
        return this.issued;
    }

    isCurrent(ticket: number): boolean {
        return ticket === this.issued;
    }

    /** Makes every request issued so far stale. */
    invalidate(): void {
        this.issued += 1;
    }
}

/** Runs `callback` once, `delayMs` after the last call to `schedule`. */
export class Debouncer {
    private handle: unknown = undefined;

    constructor(
        private readonly delayMs: number,
        private readonly timers: Timers = realTimers,
    ) {}

    schedule(callback: () => void): void {
        this.cancel();
        this.handle = this.timers.setTimeout(() => {
            this.handle = undefined;
            callback();
        }, this.delayMs);
    }

    cancel(): void {
        if (this.handle !== undefined) {
            this.timers.clearTimeout(this.handle);
            this.handle = undefined;
        }
    }

    get pending(): boolean {
        return this.handle !== undefined;
    }
}

export interface PendingRequest<R> {
    promise: Promise<R>;
    cancel(): void;
}

export interface LiveQueryOptions<R> {
    delayMs?: number;
    timers?: Timers;
    /** Starts one request; `cancel` asks the server to stop (its answer, if any, is dropped anyway). */
    send(query: string): PendingRequest<R>;
    onAnswer(query: string, answer: R): void;
    onError(query: string, error: unknown): void;
    /** Called with true while the latest query is waiting for its answer. */
    onBusy(busy: boolean): void;
    /** The query became empty: clear what is shown. */
    onEmpty(): void;
}

export class LiveQuery<R> {
    private readonly latest = new LatestOnly();
    private readonly debouncer: Debouncer;
    private inFlight: PendingRequest<R> | undefined;
    private current = '';
    private disposed = false;

    constructor(private readonly options: LiveQueryOptions<R>) {
        this.debouncer = new Debouncer(options.delayMs ?? DEFAULT_DEBOUNCE_MS, options.timers ?? realTimers);
    }

    /** The text changed: search for it after the debounce delay. */
    update(query: string): void {
        this.current = query.trim();
        if (!this.current) {
            this.stop();
            this.options.onEmpty();
            return;
        }
        // Busy from the keystroke on: what is shown is not yet the answer to what is typed.
        this.options.onBusy(true);
        this.debouncer.schedule(() => this.fire(this.current));
    }

    /** Search for the current text now (e.g. after the preset changed). */
    refresh(): void {
        this.debouncer.cancel();
        if (this.current) {
            this.fire(this.current);
        }
    }

    dispose(): void {
        this.stop();
        this.disposed = true;
    }

    private stop(): void {
        this.debouncer.cancel();
        this.latest.invalidate();
        this.inFlight?.cancel();
        this.inFlight = undefined;
        this.options.onBusy(false);
    }

    private fire(query: string): void {
        if (this.disposed) {
            return;
        }
        const ticket = this.latest.begin();
        this.inFlight?.cancel();
        const request = this.options.send(query);
        this.inFlight = request;
        this.options.onBusy(true);
        request.promise.then(
            (answer) => {
                if (this.accept(ticket)) {
                    this.options.onAnswer(query, answer);
                }
            },
            (error: unknown) => {
                if (this.accept(ticket)) {
                    this.options.onError(query, error);
                }
            },
        );
    }

    /** True when `ticket` is still the newest request; stale answers (and the errors of cancelled requests) are dropped. */
    private accept(ticket: number): boolean {
        if (this.disposed || !this.latest.isCurrent(ticket)) {
            return false;
        }
        this.inFlight = undefined;
        this.options.onBusy(false);
        return true;
    }
}
