// Starts, restarts and stops the language server (`python -m maguyva_lsp` over stdio), passes it the settings, and
// reports its state and work-done progress to the rest of the extension.

import * as readline from 'node:readline';
import type { Readable } from 'node:stream';
import * as vscode from 'vscode';
import {
    DidChangeConfigurationNotification,
    LanguageClient,
    State,
    TransportKind,
    WorkDoneProgress,
    WorkDoneProgressCreateRequest,
    type ClientCapabilities,
    type FeatureState,
    type LanguageClientOptions,
    type ServerOptions,
    type StaticFeature,
    type WorkDoneProgressBegin,
    type WorkDoneProgressEnd,
    type WorkDoneProgressReport,
} from 'vscode-languageclient/node';
import { SERVER_ARGS, sourceLabel } from '../core/interpreter';
import { StderrClassifier } from '../core/serverLog';
import { configurationPayload, SECTION, type ServerSettings } from '../core/settings';
import type { ServerPhase } from '../core/status';
import { definitionMiddleware } from './definition';
import { errorMessage, type Logger } from './logging';
import { checkServerImportable, offerInstall, resolveInterpreter } from './python';
import { currentDefinitionFallback, currentServerSettings, type ApiKeyStore } from './settings';

/** How long `shutdown`/`exit` may take before the server process is killed. */
const STOP_TIMEOUT_MS = 5_000;
const CLIENT_ID = 'maguyva';
const CLIENT_NAME = 'Maguyva';
/** Context key true while the server runs; menus and commands use it. */
const RUNNING_CONTEXT_KEY = 'maguyva.serverRunning';

export type ProgressValue = WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd;

export interface ProgressEvent {
    token: string | number;
    value: ProgressValue;
}

export interface PhaseEvent {
    phase: ServerPhase;
    reason?: string;
}

export class ServerNotRunningError extends Error {
    constructor() {
        super('The Maguyva language server is not running. Run "Maguyva: Restart Server" or see "Maguyva: Show Log".');
    }
}

/**
 * Takes over `window/workDoneProgress/create` (initialised after the client's own progress feature, so it replaces
 * that handler) to forward the server's progress to our status bar instead of a generic notification.
 */
class ProgressForwarder implements StaticFeature {
    private readonly subscriptions = new Map<string | number, vscode.Disposable>();

    constructor(
        private readonly client: LanguageClient,
        private readonly emit: (event: ProgressEvent) => void,
    ) {}

    fillClientCapabilities(capabilities: ClientCapabilities): void {
        capabilities.window = { ...capabilities.window, workDoneProgress: true };
    }

    getState(): FeatureState {
        return { kind: 'static' };
    }

    initialize(): void {
        this.client.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
            this.subscriptions.get(token)?.dispose();
            const subscription = this.client.onProgress(WorkDoneProgress.type, token, (value) => {
                this.emit({ token, value });
                if (value.kind === 'end') {
                    this.subscriptions.get(token)?.dispose();
                    this.subscriptions.delete(token);
                }
            });
            this.subscriptions.set(token, subscription);
        });
    }

    clear(): void {
        for (const subscription of this.subscriptions.values()) {
            subscription.dispose();
        }
        this.subscriptions.clear();
    }
}

export class ServerManager implements vscode.Disposable {
    private client: LanguageClient | undefined;
    /** Serialises start/stop/restart so overlapping commands cannot start two servers. */
    private queue: Promise<unknown> = Promise.resolve();
    private readonly phaseEmitter = new vscode.EventEmitter<PhaseEvent>();
    private readonly progressEmitter = new vscode.EventEmitter<ProgressEvent>();
    readonly onDidChangePhase = this.phaseEmitter.event;
    readonly onProgress = this.progressEmitter.event;
    private phaseNow: PhaseEvent = { phase: 'stopped' };
    /** The settings problems last shown, so the same warning is not repeated on every settings push. */
    private shownProblems = '';

    constructor(
        private readonly logger: Logger,
        private readonly apiKeys: ApiKeyStore,
    ) {}

    get phase(): PhaseEvent {
        return this.phaseNow;
    }

    get isRunning(): boolean {
        return this.client?.state === State.Running;
    }

    start(): Promise<void> {
        return this.enqueue(() => this.startNow());
    }

    stop(): Promise<void> {
        return this.enqueue(() => this.stopNow());
    }

    restart(): Promise<void> {
        return this.enqueue(async () => {
            await this.stopNow();
            await this.startNow();
        });
    }

    async request<R>(method: string, params: unknown, token?: vscode.CancellationToken): Promise<R> {
        const client = this.client;
        if (client?.state !== State.Running) {
            throw new ServerNotRunningError();
        }
        return token ? client.sendRequest<R>(method, params, token) : client.sendRequest<R>(method, params);
    }

    /** Sends the current settings (and key) to the running server with workspace/didChangeConfiguration. */
    async pushSettings(): Promise<void> {
        const client = this.client;
        if (client?.state !== State.Running) {
            return;
        }
        const settings = await this.settingsForServer();
        await client.sendNotification(DidChangeConfigurationNotification.type, configurationPayload(settings));
    }

    dispose(): void {
        void this.stop();
        this.phaseEmitter.dispose();
        this.progressEmitter.dispose();
    }

    private enqueue(step: () => Promise<void>): Promise<void> {
        const next = this.queue.then(step, step);
        this.queue = next.catch(() => undefined);
        return next;
    }

    private setPhase(phase: ServerPhase, reason?: string): void {
        this.phaseNow = { phase, reason };
        void vscode.commands.executeCommand('setContext', RUNNING_CONTEXT_KEY, phase === 'running');
        this.phaseEmitter.fire(this.phaseNow);
    }

    private async settingsForServer(): Promise<ServerSettings> {
        const translation = await currentServerSettings(this.apiKeys);
        this.logger.addSecret(translation.settings.voyageApiKey);
        for (const problem of translation.problems) {
            this.logger.warn(problem);
        }
        const problems = translation.problems.join('; ');
        if (problems && problems !== this.shownProblems) {
            void vscode.window.showWarningMessage(`Maguyva: ${problems}`);
        }
        this.shownProblems = problems;
        if (translation.missingApiKey) {
            void promptForApiKey();
        }
        return translation.settings;
    }

    private async startNow(): Promise<void> {
        if (this.client) {
            return;
        }
        this.setPhase('starting');
        const choice = await resolveInterpreter(this.logger);
        this.logger.info(`Using ${choice.command} (${sourceLabel(choice.source)})`);
        const check = await checkServerImportable(choice.command);
        if (!check.ok) {
            this.setPhase('failed', `maguyva_lsp is not importable by ${choice.command}`);
            void offerInstall(choice, check.reason, this.logger);
            return;
        }
        this.logger.info(`maguyva_lsp found at ${check.location}`);
        const client = this.createClient(choice.command, await this.settingsForServer());
        this.client = client;
        client.onDidChangeState(({ newState }) => {
            if (this.client !== client) {
                return;
            }
            if (newState === State.Running) {
                this.setPhase('running');
            } else if (newState === State.Starting) {
                this.setPhase('starting');
            } else {
                this.setPhase('stopped');
            }
        });
        try {
            await client.start();
        } catch (error) {
            this.logger.error(`The language server did not start: ${errorMessage(error)}`);
            this.client = undefined;
            await client.dispose(STOP_TIMEOUT_MS).catch(() => undefined);
            this.setPhase('failed', `The server did not start: ${errorMessage(error)}`);
            const answer = await vscode.window.showErrorMessage('Maguyva: the language server did not start.', 'Show Log');
            if (answer) {
                this.logger.show();
            }
        }
    }

    private async stopNow(): Promise<void> {
        const client = this.client;
        this.client = undefined;
        if (client) {
            try {
                await client.dispose(STOP_TIMEOUT_MS);
            } catch (error) {
                this.logger.warn(`Stopping the server: ${errorMessage(error)}`);
            }
        }
        this.setPhase('stopped');
    }

    private createClient(python: string, settings: ServerSettings): LanguageClient {
        const serverOptions: ServerOptions = {
            command: python,
            args: [...SERVER_ARGS],
            transport: TransportKind.stdio,
            options: {
                cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
                env: { ...process.env, PYTHONUNBUFFERED: '1' },
            },
        };
        const clientOptions: LanguageClientOptions = {
            documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
            outputChannel: this.logger,
            traceOutputChannel: this.logger,
            stdioOptions: { stdout: forwardLines(() => 'info'), stderr: forwardStderr },
            initializationOptions: settings,
            middleware: {
                provideDefinition: definitionMiddleware(currentDefinitionFallback, this.logger),
                workspace: {
                    // A server that pulls settings with workspace/configuration gets what initializationOptions carry.
                    configuration: async (params, token, next) => {
                        const wanted = params.items.map((item) => item.section === SECTION);
                        if (!wanted.some(Boolean)) {
                            return next(params, token);
                        }
                        const ours = await this.settingsForServer();
                        const theirs = await next(params, token);
                        if (!Array.isArray(theirs)) {
                            return theirs;
                        }
                        return wanted.map((isOurs, index): unknown => (isOurs ? ours : theirs[index]));
                    },
                },
            },
        };
        const client = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
        client.registerFeature(new ProgressForwarder(client, (event) => this.progressEmitter.fire(event)));
        return client;
    }
}

type ChannelLevel = 'debug' | 'info' | 'error';

/** Writes each line of `input` to the channel at the level `levelOf` gives it. */
function forwardLines(levelOf: (line: string) => ChannelLevel) {
    return (input: Readable, channel: vscode.LogOutputChannel): void => {
        readline
            .createInterface({ input, crlfDelay: Infinity, terminal: false })
            .on('line', (line) => channel[levelOf(line)](line));
    };
}

function forwardStderr(input: Readable, channel: vscode.LogOutputChannel): void {
    const classifier = new StderrClassifier();
    forwardLines((line) => classifier.levelOf(line))(input, channel);
}

/** Offers to store a key when the voyage embedder is chosen without one (once per session). */
let promptedForKey = false;
async function promptForApiKey(): Promise<void> {
    if (promptedForKey) {
        return;
    }
    promptedForKey = true;
    const answer = await vscode.window.showWarningMessage(
        'Maguyva: the Voyage embedder needs an API key; until one is set the server uses what it can without it.',
        'Set Voyage API Key',
    );
    if (answer) {
        await vscode.commands.executeCommand('maguyva.setVoyageApiKey');
    }
}
