// The custom requests of the Maguyva language server (SPEC §8), as plain types with no VS Code dependency.

export const SEARCH_METHOD = 'maguyva/search';
export const IMPACT_METHOD = 'maguyva/impact';
export const STATUS_METHOD = 'maguyva/status';
/** The server's workspace/executeCommand command that rebuilds the index. */
export const REINDEX_COMMAND = 'maguyva.reindex';

export type Preset = 'quick' | 'standard' | 'thorough';
export const PRESETS: readonly Preset[] = ['quick', 'standard', 'thorough'];

export interface LspPosition {
    line: number;
    character: number;
}

export interface LspRange {
    start: LspPosition;
    end: LspPosition;
}

export interface SearchParams {
    query: string;
    preset?: Preset;
    limit?: number;
    explain?: boolean;
}

export interface ModalityContribution {
    rank: number;
    contribution: number;
}

export interface SearchHit {
    uri: string;
    range: LspRange;
    symbol: string | null;
    kind: string | null;
    score: number;
    snippet?: string | null;
    modalities?: Record<string, ModalityContribution>;
}

export interface SearchResponse {
    intent: string;
    confidence: number;
    target?: string | null;
    fusion_strategy: string;
    modalities: string[];
    modalities_skipped?: string[] | Record<string, string>;
    partial?: boolean;
    results: SearchHit[];
    elapsed_ms: number;
}

export type ImpactParams =
    | { textDocument: { uri: string }; position: LspPosition }
    | { symbol: string };

export interface ImpactedSymbol {
    uri: string;
    range: LspRange;
    symbol: string;
    depth: number;
}

export interface ImpactResponse {
    symbol: string | null;
    impacted: ImpactedSymbol[];
    /** Present when uses by the symbol's name alone could not be attributed to it (too many share the name). */
    note?: string;
}

/** `maguyva/status`: the named fields are those the extension reads; the server may send more. */
export interface StatusResponse {
    indexing: boolean;
    files: number;
    chunks?: number;
    symbols: number;
    edges?: number;
    embedder?: string;
    [key: string]: unknown;
}

export function isPreset(value: unknown): value is Preset {
    return typeof value === 'string' && (PRESETS as readonly string[]).includes(value);
}

/** The preset after `current` in the cycle quick → standard → thorough → quick. */
export function nextPreset(current: Preset): Preset {
    return PRESETS[(PRESETS.indexOf(current) + 1) % PRESETS.length] ?? 'standard';
}
