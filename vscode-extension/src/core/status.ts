// Status bar texts and the status details list, from work-done progress and `maguyva/status`.

import type { StatusResponse } from './protocol';

export interface ProgressState {
    title?: string;
    message?: string;
    /** 0–100, when the server reports it. */
    percentage?: number;
}

export type ServerPhase = 'starting' | 'running' | 'stopped' | 'failed';

export interface StatusBarView {
    text: string;
    tooltip: string;
}

export function formatCount(value: number): string {
    return Math.round(value).toLocaleString('en-US');
}

function plural(count: number, word: string): string {
    return `${formatCount(count)} ${word}${count === 1 ? '' : 's'}`;
}

export function progressView(progress: ProgressState): StatusBarView {
    const percent = progress.percentage === undefined ? '' : ` ${Math.round(progress.percentage)}%`;
    const detail = [progress.title, progress.message].filter(Boolean).join(': ');
    return {
        text: `$(sync~spin) Maguyva: indexing${percent}`,
        tooltip: detail ? `Maguyva — ${detail}` : 'Maguyva is indexing the workspace',
    };
}

export function indexedView(status: StatusResponse): StatusBarView {
    const counts = `${plural(status.files, 'file')} · ${plural(status.symbols, 'symbol')}`;
    if (status.indexing) {
        return { text: `$(sync~spin) Maguyva: indexing · ${counts}`, tooltip: `Maguyva is indexing: ${counts} so far. Click for details.` };
    }
    return { text: `$(database) Maguyva: ${counts}`, tooltip: `Maguyva indexed ${counts}. Click for details.` };
}

export function phaseView(phase: ServerPhase, reason?: string): StatusBarView {
    switch (phase) {
        case 'starting':
            return { text: '$(loading~spin) Maguyva: starting', tooltip: 'The Maguyva language server is starting' };
        case 'running':
            return { text: '$(database) Maguyva', tooltip: 'The Maguyva language server is running. Click for details.' };
        case 'stopped':
            return { text: '$(circle-slash) Maguyva: stopped', tooltip: reason ?? 'The Maguyva language server is not running. Click for details.' };
        case 'failed':
            return { text: '$(error) Maguyva', tooltip: reason ?? 'The Maguyva language server failed. Click for details.' };
    }
}

function describeValue(value: unknown): string {
    if (typeof value === 'number') {
        return Number.isInteger(value) ? formatCount(value) : value.toFixed(2);
    }
    if (typeof value === 'string') {
        return value;
    }
    if (typeof value === 'boolean') {
        return value ? 'yes' : 'no';
    }
    if (value === null || value === undefined) {
        return '—';
    }
    return JSON.stringify(value);
}

/** Known fields first in a fixed order, then whatever else the server reports, alphabetically. */
const STATUS_ORDER = ['indexing', 'files', 'chunks', 'symbols', 'edges', 'embedder'];

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** "root /ws · files 4 · indexing no": the plain fields of one nested entry (e.g. a workspace folder). */
function describeRecord(record: Record<string, unknown>): string {
    return Object.entries(record)
        .filter(([, value]) => !isRecord(value) && !Array.isArray(value))
        .map(([key, value]) => `${key.replace(/_/g, ' ')} ${describeValue(value)}`)
        .join(' · ');
}

/** One line per field; a list of objects (such as per-folder counts) gets one line per entry. */
export function statusLines(status: StatusResponse): { label: string; value: string }[] {
    const known = STATUS_ORDER.filter((key) => key in status);
    const others = Object.keys(status)
        .filter((key) => !STATUS_ORDER.includes(key))
        .sort();
    return [...known, ...others].flatMap((key) => {
        const label = key.replace(/_/g, ' ');
        const value = status[key];
        if (Array.isArray(value) && value.length > 0 && value.every(isRecord)) {
            return value.map((entry, index) => ({ label: `${label} ${index + 1}`, value: describeRecord(entry) }));
        }
        if (isRecord(value)) {
            return [{ label, value: describeRecord(value) }];
        }
        return [{ label, value: describeValue(value) }];
    });
}
