// When Maguyva answers Go to Definition, and the guard that keeps our "does anyone else answer?" probe from asking
// our own provider again (the probe runs every definition provider, ours included).

import type { DefinitionFallback } from './settings';

/** What the definition middleware does with one request. */
export type DefinitionAction =
    /** Return nothing: the fallback is off, or this call comes from our own probe. */
    | 'skip'
    /** Ask the server. */
    | 'answer'
    /** Ask the other providers first; answer only if none of them finds anything. */
    | 'probe';

export function positionKey(uri: string, line: number, character: number): string {
    return `${uri}#${line}:${character}`;
}

export function definitionAction(mode: DefinitionFallback, probing: boolean): DefinitionAction {
    if (probing || mode === 'off') {
        return 'skip';
    }
    return mode === 'always' ? 'answer' : 'probe';
}

/** True when the probe found no definition from any other provider. */
export function othersFoundNothing(results: readonly unknown[] | null | undefined): boolean {
    return !results || results.length === 0;
}

/**
 * Marks positions whose probe is in flight. A definition request for a marked position is the probe reaching our own
 * provider, which must answer nothing (else the probe would recurse, and would count our answer as another's).
 * Counted, so overlapping probes of one position unmark it only when the last finishes.
 */
export class ProbeGuard {
    private readonly active = new Map<string, number>();

    isProbing(key: string): boolean {
        return this.active.has(key);
    }

    async run<T>(key: string, probe: () => PromiseLike<T>): Promise<T> {
        this.active.set(key, (this.active.get(key) ?? 0) + 1);
        try {
            return await probe();
        } finally {
            const left = (this.active.get(key) ?? 1) - 1;
            if (left > 0) {
                this.active.set(key, left);
            } else {
                this.active.delete(key);
            }
        }
    }
}
