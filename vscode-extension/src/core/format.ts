// How search results and their query analysis are shown: labels, paths, icons and the palette title. No VS Code here.

import type { ModalityContribution, SearchHit, SearchResponse } from './protocol';

/** Codicon ids for the symbol kinds the server reports; anything else gets `UNKNOWN_KIND_ICON`. */
const KIND_ICONS: Readonly<Record<string, string>> = {
    function: 'symbol-function',
    method: 'symbol-method',
    constructor: 'symbol-constructor',
    class: 'symbol-class',
    interface: 'symbol-interface',
    trait: 'symbol-interface',
    protocol: 'symbol-interface',
    struct: 'symbol-struct',
    enum: 'symbol-enum',
    enum_member: 'symbol-enum-member',
    type: 'symbol-type-parameter',
    typedef: 'symbol-type-parameter',
    type_alias: 'symbol-type-parameter',
    constant: 'symbol-constant',
    variable: 'symbol-variable',
    field: 'symbol-field',
    property: 'symbol-property',
    module: 'symbol-namespace',
    namespace: 'symbol-namespace',
    package: 'symbol-package',
    macro: 'symbol-snippet',
    impl: 'symbol-class',
    // Reference hits: a use of a symbol rather than its definition.
    call: 'call-outgoing',
    import: 'symbol-namespace',
    inherit: 'type-hierarchy-super',
    reference: 'references',
};
const UNKNOWN_KIND_ICON = 'symbol-misc';
/** A hit that is a chunk of code rather than a named symbol. */
const CHUNK_ICON = 'file-code';
/** Longest snippet line shown under a result; the quick pick truncates anyway, this keeps messages small. */
const MAX_SNIPPET_CHARS = 120;
/** How many modalities a result's detail line names. */
const MAX_MODALITIES_SHOWN = 4;

export interface PaletteEntry {
    /** Label with a leading `$(codicon)`. */
    label: string;
    /** Workspace-relative `path:line`. */
    description: string;
    /** Kind, score and which retrievers found it, then the first line of the snippet. */
    detail: string;
}

export function kindIcon(kind: string | null | undefined, hasSymbol = true): string {
    if (!hasSymbol) {
        return CHUNK_ICON;
    }
    if (!kind) {
        return UNKNOWN_KIND_ICON;
    }
    return KIND_ICONS[kind.toLowerCase()] ?? UNKNOWN_KIND_ICON;
}

function safeDecode(text: string): string {
    try {
        return decodeURIComponent(text);
    } catch {
        return text;
    }
}

function withSlash(uri: string): string {
    return uri.endsWith('/') ? uri : `${uri}/`;
}

function lastSegment(uri: string): string {
    const trimmed = uri.endsWith('/') ? uri.slice(0, -1) : uri;
    return safeDecode(trimmed.slice(trimmed.lastIndexOf('/') + 1));
}

/** The path of `uri` relative to the workspace folder containing it (prefixed by the folder's name in a multi-root
 *  workspace), or the decoded path of the URI when no folder contains it. */
export function relativePath(uri: string, folderUris: readonly string[]): string {
    let best: string | undefined;
    for (const folder of folderUris) {
        const prefix = withSlash(folder);
        if (uri.startsWith(prefix) && (best === undefined || prefix.length > best.length)) {
            best = prefix;
        }
    }
    if (best === undefined) {
        const schemeEnd = uri.indexOf('://');
        const path = schemeEnd >= 0 ? uri.slice(uri.indexOf('/', schemeEnd + 3)) : uri;
        return safeDecode(path);
    }
    const rest = safeDecode(uri.slice(best.length));
    return folderUris.length > 1 ? `${lastSegment(best)}/${rest}` : rest;
}

/** 1-based line number for display (LSP lines are 0-based). */
export function displayLine(hit: { range: { start: { line: number } } }): number {
    return hit.range.start.line + 1;
}

export function firstSnippetLine(snippet: string | null | undefined): string {
    if (!snippet) {
        return '';
    }
    const line = snippet.split(/\r?\n/).find((candidate) => candidate.trim().length > 0) ?? '';
    const trimmed = line.trim();
    return trimmed.length > MAX_SNIPPET_CHARS ? `${trimmed.slice(0, MAX_SNIPPET_CHARS - 1)}…` : trimmed;
}

/** "structural #1 · text #3", best contribution first (ranks from the server are 0-based). */
export function modalitySummary(modalities: Record<string, ModalityContribution> | undefined): string {
    if (!modalities) {
        return '';
    }
    return Object.entries(modalities)
        .sort(([, a], [, b]) => b.contribution - a.contribution)
        .slice(0, MAX_MODALITIES_SHOWN)
        .map(([name, info]) => `${name} #${info.rank + 1}`)
        .join(' · ');
}

export function formatScore(score: number): string {
    return score >= 1 ? score.toFixed(2) : score.toPrecision(3);
}

export function paletteEntry(hit: SearchHit, folderUris: readonly string[]): PaletteEntry {
    const hasSymbol = Boolean(hit.symbol);
    const path = relativePath(hit.uri, folderUris);
    const line = displayLine(hit);
    const name = hit.symbol || firstSnippetLine(hit.snippet) || `${lastSegment(hit.uri)}:${line}`;
    const facts = [hit.kind ?? (hasSymbol ? 'symbol' : 'code'), `score ${formatScore(hit.score)}`];
    const found = modalitySummary(hit.modalities);
    if (found) {
        facts.push(found);
    }
    const snippet = hasSymbol ? firstSnippetLine(hit.snippet) : '';
    const detail = snippet ? `${facts.join(' · ')} — ${snippet}` : facts.join(' · ');
    return { label: `$(${kindIcon(hit.kind, hasSymbol)}) ${name}`, description: `${path}:${line}`, detail };
}

/** "find_definition" → "find definition". */
export function intentLabel(intent: string): string {
    return intent.replace(/_/g, ' ');
}

/** The palette title: what the server made of the query and how it searched. */
export function searchTitle(response: SearchResponse, preset: string): string {
    const parts = [
        `${intentLabel(response.intent)} ${Math.round(response.confidence * 100)}%`,
        response.fusion_strategy,
        preset,
        `${response.results.length} result${response.results.length === 1 ? '' : 's'} in ${response.elapsed_ms.toFixed(0)} ms`,
    ];
    if (response.partial) {
        parts.push('partial: still indexing');
    }
    return `Maguyva: ${parts.join(' · ')}`;
}
