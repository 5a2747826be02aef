// Groups the answer of `maguyva/impact` by depth for the tree view: direct dependents first, then theirs, and so on.

import { relativePath } from './format';
import type { ImpactedSymbol } from './protocol';

export interface DepthGroup {
    depth: number;
    label: string;
    items: ImpactedSymbol[];
}

export function depthLabel(depth: number, count: number): string {
    const what = depth <= 0 ? 'The symbol itself' : depth === 1 ? 'Direct dependents' : `Depth ${depth}`;
    return `${what} (${count})`;
}

function sameLocation(a: ImpactedSymbol, b: ImpactedSymbol): boolean {
    return a.uri === b.uri && a.symbol === b.symbol && a.range.start.line === b.range.start.line;
}

/** Groups by depth (ascending); within a group sorted by path then line; the same symbol at the same place is kept
 *  once, at its smallest depth. */
export function groupByDepth(impacted: readonly ImpactedSymbol[]): DepthGroup[] {
    const ordered = [...impacted].sort(
        (a, b) =>
            a.depth - b.depth ||
            a.uri.localeCompare(b.uri) ||
            a.range.start.line - b.range.start.line ||
            a.symbol.localeCompare(b.symbol),
    );
    const kept: ImpactedSymbol[] = [];
    for (const item of ordered) {
        if (!kept.some((other) => sameLocation(other, item))) {
            kept.push(item);
        }
    }
    const groups = new Map<number, ImpactedSymbol[]>();
    for (const item of kept) {
        const group = groups.get(item.depth) ?? [];
        group.push(item);
        groups.set(item.depth, group);
    }
    return [...groups.entries()].map(([depth, items]) => ({ depth, label: depthLabel(depth, items.length), items }));
}

/** "pkg/config.go:12" for an impacted symbol's tree item. */
export function impactDescription(item: ImpactedSymbol, folderUris: readonly string[]): string {
    return `${relativePath(item.uri, folderUris)}:${item.range.start.line + 1}`;
}

/** The view's message; the server's note (uses it could not attribute) follows, so an empty list is not a promise. */
export function impactSummary(symbol: string | null, count: number, note?: string): string {
    const name = symbol ?? 'this symbol';
    const summary =
        count === 0 ? `Nothing in the index depends on ${name}.` : `${count} symbol${count === 1 ? '' : 's'} impacted by ${name}`;
    if (!note) {
        return summary;
    }
    return count === 0 ? `No known dependents of ${name}. ${note}.` : `${summary}. ${note}.`;
}
