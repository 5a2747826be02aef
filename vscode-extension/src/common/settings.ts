// Reads the `maguyva.*` settings and the stored Voyage key, and turns them into what the server receives.

import * as os from 'node:os';
import * as vscode from 'vscode';
import {
    definitionFallback,
    SECTION,
    translateSettings,
    type DefinitionFallback,
    type PathContext,
    type RawSettings,
    type Translation,
} from '../core/settings';

/** SecretStorage key of the Voyage API key. */
const API_KEY_SECRET = 'maguyva.voyageApiKey';

/** The Voyage API key, kept in VS Code's SecretStorage (the OS keychain), never in settings files. */
export class ApiKeyStore {
    constructor(private readonly secrets: vscode.SecretStorage) {}

    get(): Thenable<string | undefined> {
        return this.secrets.get(API_KEY_SECRET);
    }

    set(key: string): Thenable<void> {
        return this.secrets.store(API_KEY_SECRET, key);
    }

    clear(): Thenable<void> {
        return this.secrets.delete(API_KEY_SECRET);
    }

    onDidChange(listener: () => void): vscode.Disposable {
        return this.secrets.onDidChange((event) => {
            if (event.key === API_KEY_SECRET) {
                listener();
            }
        });
    }
}

export function rawSettings(): RawSettings {
    const config = vscode.workspace.getConfiguration(SECTION);
    const keys = [
        'interpreter', 'preset', 'limit', 'embedder', 'voyageModel', 'voyageDimension', 'exclude', 'maxFileSize',
        'indexDir', 'logLevel', 'definitionFallback',
    ];
    return Object.fromEntries(keys.map((key) => [key, config.get<unknown>(key)]));
}

export function pathContext(): PathContext {
    return { workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath, home: os.homedir() };
}

export async function currentServerSettings(keys: ApiKeyStore): Promise<Translation> {
    return translateSettings(rawSettings(), await keys.get(), pathContext());
}

export function currentDefinitionFallback(): DefinitionFallback {
    return definitionFallback(rawSettings());
}
