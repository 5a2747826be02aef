// The "Maguyva" output channel, shared by the extension, the language client and the server's log, with the
// Voyage API key masked in everything written to it (traces echo initializationOptions verbatim).

import * as vscode from 'vscode';
import { redact } from '../core/redact';

export class Logger implements vscode.LogOutputChannel {
    private readonly target: vscode.LogOutputChannel;
    private readonly secrets = new Set<string>();

    constructor(name = 'Maguyva') {
        this.target = vscode.window.createOutputChannel(name, { log: true });
    }

    /** Text equal to `secret` is masked from now on. */
    addSecret(secret: string | undefined): void {
        if (secret) {
            this.secrets.add(secret);
        }
    }

    private clean(value: string): string {
        return redact(value, this.secrets);
    }

    private cleanArgs(args: unknown[]): unknown[] {
        return args.map((arg) => (typeof arg === 'string' ? this.clean(arg) : arg));
    }

    get name(): string {
        return this.target.name;
    }

    get logLevel(): vscode.LogLevel {
        return this.target.logLevel;
    }

    get onDidChangeLogLevel(): vscode.Event<vscode.LogLevel> {
        return this.target.onDidChangeLogLevel;
    }

    trace(message: string, ...args: unknown[]): void {
        this.target.trace(this.clean(message), ...this.cleanArgs(args));
    }

    debug(message: string, ...args: unknown[]): void {
        this.target.debug(this.clean(message), ...this.cleanArgs(args));
    }

    info(message: string, ...args: unknown[]): void {
        this.target.info(this.clean(message), ...this.cleanArgs(args));
    }

    warn(message: string, ...args: unknown[]): void {
        this.target.warn(this.clean(message), ...this.cleanArgs(args));
    }

    error(error: string | Error, ...args: unknown[]): void {
        const message = typeof error === 'string' ? error : error.stack ?? error.message;
        this.target.error(this.clean(message), ...this.cleanArgs(args));
    }

    append(value: string): void {
        this.target.append(this.clean(value));
    }

    appendLine(value: string): void {
        this.target.appendLine(this.clean(value));
    }

    replace(value: string): void {
        this.target.replace(this.clean(value));
    }

    clear(): void {
        this.target.clear();
    }

    show(preserveFocus?: boolean): void;
    show(column?: vscode.ViewColumn, preserveFocus?: boolean): void;
    show(first?: boolean | vscode.ViewColumn, preserveFocus?: boolean): void {
        if (typeof first === 'boolean' || first === undefined) {
            this.target.show(first);
        } else {
            this.target.show(first, preserveFocus);
        }
    }

    hide(): void {
        this.target.hide();
    }

    dispose(): void {
        this.target.dispose();
    }
}

/** A readable message for anything thrown (JSON-RPC errors carry their text in `message`). */
export function errorMessage(error: unknown): string {
    if (error instanceof Error) {
        return error.message;
    }
    if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string') {
        return error.message;
    }
    return String(error);
}
