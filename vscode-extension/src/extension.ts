// Entry point: wires the language server, the commands, the views and the settings together.

import * as vscode from 'vscode';
import { needsRestart, SECTION } from './core/settings';
import { clearApiKey, setApiKey } from './commands/apiKey';
import { ImpactAnalysis, OPEN_IMPACT_COMMAND } from './commands/impact';
import { SearchPalette } from './commands/search';
import { reindex, showStatus, StatusBar } from './commands/status';
import { errorMessage, Logger } from './common/logging';
import { onPythonInterpreterChange } from './common/python';
import { ServerManager } from './common/server';
import { ApiKeyStore, rawSettings } from './common/settings';
import type { ImpactedSymbol } from './core/protocol';

let server: ServerManager | undefined;

export function activate(context: vscode.ExtensionContext): void {
    const logger = new Logger();
    const keys = new ApiKeyStore(context.secrets);
    const manager = new ServerManager(logger, keys);
    server = manager;
    const palette = new SearchPalette(manager, logger);
    const impact = new ImpactAnalysis(manager, logger);
    const statusBar = new StatusBar(manager, logger);

    const register = (id: string, run: (...args: never[]) => unknown): void => {
        context.subscriptions.push(vscode.commands.registerCommand(id, run));
    };
    register('maguyva.search', () => palette.show());
    register('maguyva.impactAnalysis', () => impact.run());
    register('maguyva.impact.clear', () => impact.clear());
    register(OPEN_IMPACT_COMMAND, (item: ImpactedSymbol) => impact.open(item));
    register('maguyva.showStatus', () => showStatus(manager));
    register('maguyva.reindexWorkspace', () => reindex(manager));
    register('maguyva.restartServer', () => manager.restart());
    register('maguyva.showLog', () => logger.show());
    register('maguyva.setVoyageApiKey', () => setApiKey(keys, logger));
    register('maguyva.clearVoyageApiKey', () => clearApiKey(keys, logger));

    context.subscriptions.push(
        logger,
        manager,
        impact,
        statusBar,
        vscode.workspace.onDidChangeConfiguration((event) => {
            if (!event.affectsConfiguration(SECTION)) {
                return;
            }
            if (needsRestart((key) => event.affectsConfiguration(key))) {
                logger.info('The interpreter setting changed: restarting the server.');
                void manager.restart();
            } else {
                manager.pushSettings().catch((error: unknown) => logger.warn(`Sending settings failed: ${errorMessage(error)}`));
            }
        }),
        keys.onDidChange(() => {
            manager.pushSettings().catch((error: unknown) => logger.warn(`Sending settings failed: ${errorMessage(error)}`));
        }),
    );
    void onPythonInterpreterChange(logger, () => {
        const configured = rawSettings().interpreter;
        if (typeof configured !== 'string' || !configured.trim()) {
            logger.info('The Python extension selected another interpreter: restarting the server.');
            void manager.restart();
        }
    }).then((subscription) => subscription && context.subscriptions.push(subscription));

    void manager.start();
}

export async function deactivate(): Promise<void> {
    await server?.stop();
    server = undefined;
}
