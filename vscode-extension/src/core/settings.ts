// Translates the user's `maguyva.*` settings into what the server receives (initializationOptions and
// workspace/didChangeConfiguration), with the same checks the server makes so mistakes are reported in the editor.

import { isPreset, type Preset } from './protocol';

export type Embedder = 'local' | 'voyage';
export type LogLevel = 'error' | 'warning' | 'info' | 'debug';
export type DefinitionFallback = 'always' | 'whenNoOtherProvider' | 'off';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 1000;
export const DEFAULT_MAX_FILE_SIZE = 1024 * 1024;
const MAX_MAX_FILE_SIZE = 1024 * 1024 * 1024;
export const VOYAGE_DIMENSIONS: readonly number[] = [256, 512, 1024, 2048];
const DEFAULT_VOYAGE_DIMENSION = 1024;
const DEFAULT_VOYAGE_MODEL = 'voyage-code-3';
const LOG_LEVELS: readonly LogLevel[] = ['error', 'warning', 'info', 'debug'];
const DEFINITION_FALLBACKS: readonly DefinitionFallback[] = ['always', 'whenNoOtherProvider', 'off'];
/** The settings section; also the key under which didChangeConfiguration carries our settings. */
export const SECTION = 'maguyva';
/** Settings read when the server starts; changing them needs a restart rather than a didChangeConfiguration. */
export const RESTART_KEYS: readonly string[] = ['interpreter'];

/** What the server receives: the keys of SPEC §8 / the server's `initializationOptions`. */
export interface ServerSettings {
    preset: Preset;
    limit: number;
    embedder: Embedder;
    voyageModel: string;
    voyageDimension: number;
    /** Present only when the embedder is voyage and a key is stored; never written to settings files. */
    voyageApiKey?: string;
    exclude: string[];
    maxFileSize: number;
    indexDir: string | null;
    logLevel: LogLevel;
}

/** Values as VS Code returns them: anything the user typed into settings.json. */
export type RawSettings = Readonly<Record<string, unknown>>;

export interface PathContext {
    workspaceFolder?: string;
    home?: string;
}

export interface Translation {
    settings: ServerSettings;
    /** One message per rejected value (which kept its default). */
    problems: string[];
    /** The embedder is voyage but no key is stored. */
    missingApiKey: boolean;
}

/** Expands `${workspaceFolder}`, `${userHome}` and a leading `~`; returns undefined when a variable cannot be filled. */
export function expandPath(value: string, context: PathContext): string | undefined {
    let result = value.trim();
    if (result.includes('${workspaceFolder}')) {
        if (context.workspaceFolder === undefined) {
            return undefined;
        }
        result = result.split('${workspaceFolder}').join(context.workspaceFolder);
    }
    if (result.includes('${userHome}') || result === '~' || result.startsWith('~/')) {
        if (context.home === undefined) {
            return undefined;
        }
        result = result.split('${userHome}').join(context.home);
        if (result === '~' || result.startsWith('~/')) {
            result = context.home + result.slice(1);
        }
    }
    return result;
}

function isWholeNumber(value: unknown): value is number {
    return typeof value === 'number' && Number.isInteger(value);
}

class Checker {
    readonly problems: string[] = [];

    constructor(private readonly raw: RawSettings) {}

    pick<T>(key: string, fallback: T, accept: (value: unknown) => T | undefined, expected: string): T {
        const value = this.raw[key];
        if (value === undefined || value === null) {
            return fallback;
        }
        const accepted = accept(value);
        if (accepted === undefined) {
            this.problems.push(`maguyva.${key}: ${expected}, got ${JSON.stringify(value)}; using ${JSON.stringify(fallback)}`);
            return fallback;
        }
        return accepted;
    }

    integer(key: string, fallback: number, low: number, high: number): number {
        return this.pick(
            key,
            fallback,
            (value) => (isWholeNumber(value) && value >= low && value <= high ? value : undefined),
            `must be a whole number from ${low} to ${high}`,
        );
    }

    oneOf<T extends string | number>(key: string, fallback: T, choices: readonly T[]): T {
        return this.pick(
            key,
            fallback,
            (value) => (choices as readonly unknown[]).includes(value) ? (value as T) : undefined,
            `must be one of ${choices.join(', ')}`,
        );
    }
}

export function translateSettings(raw: RawSettings, apiKey: string | undefined, context: PathContext): Translation {
    const check = new Checker(raw);
    const preset = check.pick<Preset>('preset', 'standard', (v) => (isPreset(v) ? v : undefined), 'must be quick, standard or thorough');
    const embedder = check.oneOf<Embedder>('embedder', 'local', ['local', 'voyage']);
    const voyageModel = check.pick(
        'voyageModel',
        DEFAULT_VOYAGE_MODEL,
        (v) => (typeof v === 'string' && v.trim() ? v.trim() : undefined),
        'must be a model name',
    );
    const exclude = check.pick<string[]>(
        'exclude',
        [],
        (v) =>
            Array.isArray(v) && v.every((item) => typeof item === 'string')
                ? v.map((item) => item.trim()).filter((item) => item.length > 0)
                : undefined,
        'must be a list of glob patterns',
    );
    const indexDirRaw = check.pick<string>('indexDir', '', (v) => (typeof v === 'string' ? v : undefined), 'must be a folder path');
    let indexDir: string | null = null;
    if (indexDirRaw.trim()) {
        const expanded = expandPath(indexDirRaw, context);
        if (expanded === undefined) {
            check.problems.push(`maguyva.indexDir: cannot expand ${JSON.stringify(indexDirRaw)} here; using the default folder`);
        } else {
            indexDir = expanded;
        }
    }
    const settings: ServerSettings = {
        preset,
        limit: check.integer('limit', DEFAULT_LIMIT, 1, MAX_LIMIT),
        embedder,
        voyageModel,
        voyageDimension: check.oneOf('voyageDimension', DEFAULT_VOYAGE_DIMENSION, VOYAGE_DIMENSIONS),
        exclude,
        maxFileSize: check.integer('maxFileSize', DEFAULT_MAX_FILE_SIZE, 1, MAX_MAX_FILE_SIZE),
        indexDir,
        logLevel: check.oneOf<LogLevel>('logLevel', 'info', LOG_LEVELS),
    };
    const key = apiKey?.trim();
    if (embedder === 'voyage' && key) {
        settings.voyageApiKey = key;
    }
    return { settings, problems: check.problems, missingApiKey: embedder === 'voyage' && !key };
}

export function definitionFallback(raw: RawSettings): DefinitionFallback {
    const value = raw.definitionFallback;
    return (DEFINITION_FALLBACKS as readonly unknown[]).includes(value) ? (value as DefinitionFallback) : 'whenNoOtherProvider';
}

/** The params of workspace/didChangeConfiguration, with our settings under their section name. */
export function configurationPayload(settings: ServerSettings): { settings: Record<string, ServerSettings> } {
    return { settings: { [SECTION]: settings } };
}

/** Whether the change touched a setting the running server cannot take live. */
export function needsRestart(affects: (key: string) => boolean): boolean {
    return RESTART_KEYS.some((key) => affects(`${SECTION}.${key}`));
}
