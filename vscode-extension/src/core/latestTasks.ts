// Runs editor actions (previews, the final open) one at a time in order, skipping any that a newer one superseded
// while it waited: opening editors is asynchronous, and a slow preview must not land after a later one.

import { LatestOnly } from './liveQuery';

export class LatestTasks {
    private chain: Promise<void> = Promise.resolve();
    private readonly latest = new LatestOnly();

    constructor(private readonly onError: (error: unknown) => void) {}

    /** Queues `task` behind the running one; it is skipped if another task is queued before its turn comes. */
    push(task: () => PromiseLike<unknown>): Promise<void> {
        const ticket = this.latest.begin();
        this.chain = this.chain.then(async () => {
            if (!this.latest.isCurrent(ticket)) {
                return;
            }
            try {
                await task();
            } catch (error) {
                this.onError(error);
            }
        });
        return this.chain;
    }

    /** Skips everything still waiting. */
    cancel(): void {
        this.latest.invalidate();
    }
}
