// "Maguyva: Set / Clear Voyage API Key": the key lives in VS Code's SecretStorage and reaches the server only in
// initializationOptions and workspace/didChangeConfiguration.

import * as vscode from 'vscode';
import { SECTION } from '../core/settings';
import type { Logger } from '../common/logging';
import { rawSettings, type ApiKeyStore } from '../common/settings';

/** Voyage keys are far longer; this only catches an accidental paste of something else. */
const MIN_KEY_LENGTH = 16;
const USE_VOYAGE = 'Use Voyage Embeddings';

export async function setApiKey(keys: ApiKeyStore, logger: Logger): Promise<void> {
    const key = await vscode.window.showInputBox({
        title: 'Maguyva: Voyage API Key',
        prompt: "Stored in VS Code's secret storage, never in settings files; sent only to the Maguyva server.",
        password: true,
        ignoreFocusOut: true,
        validateInput: (value) => {
            const trimmed = value.trim();
            if (/\s/.test(trimmed)) {
                return 'An API key has no spaces.';
            }
            return trimmed.length > 0 && trimmed.length < MIN_KEY_LENGTH ? 'This is too short to be a Voyage API key.' : undefined;
        },
    });
    if (!key?.trim()) {
        return;
    }
    logger.addSecret(key.trim());
    await keys.set(key.trim());
    logger.info('Voyage API key stored in secret storage.');
    if (rawSettings().embedder !== 'voyage') {
        const answer = await vscode.window.showInformationMessage(
            'Maguyva: Voyage API key stored. The embedder is still "local": code is embedded on this machine until you switch.',
            USE_VOYAGE,
        );
        if (answer === USE_VOYAGE) {
            await vscode.workspace.getConfiguration(SECTION).update('embedder', 'voyage', vscode.ConfigurationTarget.Global);
        }
    } else {
        void vscode.window.showInformationMessage('Maguyva: Voyage API key stored.');
    }
}

export async function clearApiKey(keys: ApiKeyStore, logger: Logger): Promise<void> {
    await keys.clear();
    logger.info('Voyage API key removed from secret storage.');
    void vscode.window.showInformationMessage('Maguyva: Voyage API key removed.');
}
