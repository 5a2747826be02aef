// The status bar item (indexing progress, then files and symbols indexed) and "Maguyva: Show Status".

import * as vscode from 'vscode';
import { REINDEX_COMMAND, STATUS_METHOD, type StatusResponse } from '../core/protocol';
import { indexedView, phaseView, progressView, statusLines, type StatusBarView } from '../core/status';
import { errorMessage, type Logger } from '../common/logging';
import type { ProgressEvent, ServerManager } from '../common/server';

/** While the server says it is indexing, ask for its counts this often (a fallback when no progress arrives). */
const INDEXING_POLL_MS = 2_000;
/** After saves settle, refresh the counts (the server re-indexes changed files on its own). */
const SAVE_REFRESH_DELAY_MS = 1_500;
/** Left side, after most built-in items. */
const STATUS_PRIORITY = 10;

export class StatusBar implements vscode.Disposable {
    private readonly item: vscode.StatusBarItem;
    private readonly subscriptions: vscode.Disposable[] = [];
    private pollTimer: ReturnType<typeof setTimeout> | undefined;
    private readonly activeProgress = new Set<string | number>();

    constructor(
        private readonly server: ServerManager,
        private readonly logger: Logger,
    ) {
        this.item = vscode.window.createStatusBarItem('maguyva.status', vscode.StatusBarAlignment.Left, STATUS_PRIORITY);
        this.item.name = 'Maguyva';
        this.item.command = 'maguyva.showStatus';
        this.render(phaseView(server.phase.phase, server.phase.reason));
        this.item.show();
        this.subscriptions.push(
            server.onDidChangePhase(({ phase, reason }) => {
                this.activeProgress.clear();
                this.render(phaseView(phase, reason));
                if (phase === 'running') {
                    void this.refresh();
                }
            }),
            server.onProgress((event) => this.onProgress(event)),
            vscode.workspace.onDidSaveTextDocument(() => this.schedule(SAVE_REFRESH_DELAY_MS)),
        );
    }

    /** Asks the server for its counts and shows them; keeps polling while it is indexing. */
    async refresh(): Promise<void> {
        if (!this.server.isRunning) {
            return;
        }
        try {
            const status = await this.server.request<StatusResponse>(STATUS_METHOD, {});
            if (this.activeProgress.size === 0) {
                this.render(indexedView(status));
            }
            if (status.indexing) {
                this.schedule(INDEXING_POLL_MS);
            }
        } catch (error) {
            this.logger.debug(`maguyva/status failed: ${errorMessage(error)}`);
        }
    }

    dispose(): void {
        this.clearTimer();
        for (const subscription of this.subscriptions) {
            subscription.dispose();
        }
        this.item.dispose();
    }

    private onProgress({ token, value }: ProgressEvent): void {
        if (value.kind === 'end') {
            this.activeProgress.delete(token);
            void this.refresh();
            return;
        }
        this.activeProgress.add(token);
        this.render(progressView({ title: value.kind === 'begin' ? value.title : undefined, message: value.message, percentage: value.percentage }));
    }

    private render(view: StatusBarView): void {
        this.item.text = view.text;
        this.item.tooltip = view.tooltip;
        this.item.accessibilityInformation = { label: view.text.replace(/\$\([^)]*\)\s*/g, '') };
    }

    private schedule(delayMs: number): void {
        this.clearTimer();
        this.pollTimer = setTimeout(() => {
            this.pollTimer = undefined;
            void this.refresh();
        }, delayMs);
    }

    private clearTimer(): void {
        if (this.pollTimer !== undefined) {
            clearTimeout(this.pollTimer);
            this.pollTimer = undefined;
        }
    }
}

interface ActionItem extends vscode.QuickPickItem {
    command?: string;
}

/** "Maguyva: Show Status": the server's `maguyva/status` as a list, with the usual follow-up actions. */
export async function showStatus(server: ServerManager): Promise<void> {
    const actions: ActionItem[] = [
        { label: '', kind: vscode.QuickPickItemKind.Separator },
        { label: '$(refresh) Re-index Workspace', command: 'maguyva.reindexWorkspace' },
        { label: '$(debug-restart) Restart Server', command: 'maguyva.restartServer' },
        { label: '$(output) Show Log', command: 'maguyva.showLog' },
        { label: '$(key) Set Voyage API Key', command: 'maguyva.setVoyageApiKey' },
    ];
    let facts: ActionItem[];
    try {
        const status = await server.request<StatusResponse>(STATUS_METHOD, {});
        facts = statusLines(status).map(({ label, value }) => ({ label, description: value }));
    } catch (error) {
        facts = [{ label: '$(error) Not available', description: errorMessage(error) }];
    }
    const choice = await vscode.window.showQuickPick([...facts, ...actions], { title: 'Maguyva: Status', placeHolder: 'Index status' });
    if (choice?.command) {
        await vscode.commands.executeCommand(choice.command);
    }
}

/** "Maguyva: Re-index Workspace": the server's `maguyva.reindex` command. */
export async function reindex(server: ServerManager): Promise<void> {
    try {
        await server.request('workspace/executeCommand', { command: REINDEX_COMMAND, arguments: [] });
    } catch (error) {
        void vscode.window.showErrorMessage(`Maguyva: re-index failed: ${errorMessage(error)}`);
    }
}
