// The custom requests of the Maguyva language server (SPEC §8), as plain types with no VS Code dependency.
// They mirror the server's contract (maguyva_lsp/api/): test/contract.test.ts checks them against JSON answers the
// Python side writes (tests/unit/api/test_contract_fixtures.py), so a change on either side that the other does not
// follow fails a test. Each *_KEYS list names every field of its type (checked both ways at compile time).

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
    regex?: boolean;
    caseSensitive?: boolean;
}

export interface ModalityContribution {
    rank: number;
    contribution: number;
}

/** With `explain`: how a result's fused score was made. */
export interface HitExplain {
    centrality: number;
    boost: number;
    demotion: number;
    path_class: string;
}

export interface SearchHit {
    uri: string;
    range: LspRange;
    symbol: string | null;
    kind: string | null;
    score: number;
    snippet?: string | null;
    modalities?: Record<string, ModalityContribution>;
    /** With `explain`: the workspace-relative path and the score's parts. */
    path?: string;
    explain?: HitExplain;
}

/** A retriever the search planned but could not ask, and why. */
export interface SkippedModality {
    modality: string;
    reason: string;
}

/** With `explain`: what the search was and how its retrievers were weighed. */
export interface SearchExplain {
    query: string;
    literal: boolean;
    preset: string;
    weights: Record<string, number>;
    rrf_k: number | null;
}

/** How much an exact text search (a literal, a regex, a whole identifier) found in all, beyond the results shown. A
 * broad search ranks its top results without counting every match of every file: then `truncated` is true and the
 * counts are lower bounds (the results themselves are still the top ones). */
export interface TextMatches {
    matches: number;
    /** Files holding a match (a lower bound only when `files_unread` is not 0). */
    files: number;
    truncated: boolean;
    /** Files holding matches that no result shows. */
    files_not_shown: number;
    /** Candidate files never read, when a time budget or a scan cap stopped the search. */
    files_unread: number;
}

export type FusionStrategy = 'direct' | 'rrf' | 'semantic_only';
export const FUSION_STRATEGIES: readonly FusionStrategy[] = ['direct', 'rrf', 'semantic_only'];

export interface SearchResponse {
    intent: string;
    confidence: number;
    target?: string | null;
    /** The classifier rule that fired. */
    rule?: string;
    /** One of FUSION_STRATEGIES (kept a string here so that a newer server's strategy still displays). */
    fusion_strategy: string;
    modalities: string[];
    modalities_skipped?: SkippedModality[];
    partial?: boolean;
    /** What the search did instead of its plan (a fallback). */
    notes?: string[];
    results: SearchHit[];
    /** Set when the text retriever ran an exact search; null otherwise. */
    text_matches?: TextMatches | null;
    elapsed_ms: number;
    explain?: SearchExplain;
}

export type ImpactParams =
    | { textDocument: { uri: string }; position: LspPosition }
    | { symbol: string };

export interface ImpactedSymbol {
    uri: string;
    range: LspRange;
    symbol: string;
    kind?: string;
    depth: number;
    /** The chain of symbols from the changed one to this one. */
    path?: string[];
    centrality?: number;
}

export interface ImpactResponse {
    symbol: string | null;
    impacted: ImpactedSymbol[];
    /** Present when uses by the symbol's name alone could not be attributed to it (too many share the name). */
    note?: string;
}

/** `maguyva/status`: the named fields are those the extension reads; the server sends more (per-folder details). */
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

// Every field of each answer type, so that a test can tell a field the server sends but this file does not declare.
export const SEARCH_RESPONSE_KEYS = [
    'intent', 'confidence', 'target', 'rule', 'fusion_strategy', 'modalities', 'modalities_skipped', 'partial',
    'notes', 'results', 'text_matches', 'elapsed_ms', 'explain',
] as const satisfies readonly (keyof SearchResponse)[];
export const TEXT_MATCHES_KEYS = [
    'matches', 'files', 'truncated', 'files_not_shown', 'files_unread',
] as const satisfies readonly (keyof TextMatches)[];
export const SEARCH_HIT_KEYS = [
    'uri', 'range', 'symbol', 'kind', 'score', 'snippet', 'modalities', 'path', 'explain',
] as const satisfies readonly (keyof SearchHit)[];
export const HIT_EXPLAIN_KEYS = ['centrality', 'boost', 'demotion', 'path_class'] as const satisfies readonly (keyof HitExplain)[];
export const SKIPPED_MODALITY_KEYS = ['modality', 'reason'] as const satisfies readonly (keyof SkippedModality)[];
export const SEARCH_EXPLAIN_KEYS = [
    'query', 'literal', 'preset', 'weights', 'rrf_k',
] as const satisfies readonly (keyof SearchExplain)[];
export const MODALITY_CONTRIBUTION_KEYS = ['rank', 'contribution'] as const satisfies readonly (keyof ModalityContribution)[];
export const IMPACT_RESPONSE_KEYS = ['symbol', 'impacted', 'note'] as const satisfies readonly (keyof ImpactResponse)[];
export const IMPACTED_SYMBOL_KEYS = [
    'uri', 'range', 'symbol', 'kind', 'depth', 'path', 'centrality',
] as const satisfies readonly (keyof ImpactedSymbol)[];
