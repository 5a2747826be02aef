// "Maguyva: Search": a quick pick that asks `maguyva/search` as the user types, previews the focused result and opens
// the accepted one at its range. A title button switches the preset.

import * as vscode from 'vscode';
import { paletteEntry, searchTitle } from '../core/format';
import { LatestTasks } from '../core/latestTasks';
import { LiveQuery } from '../core/liveQuery';
import { isPreset, nextPreset, SEARCH_METHOD, type Preset, type SearchHit, type SearchResponse } from '../core/protocol';
import { folderUris, openLocation } from '../common/locations';
import { errorMessage, type Logger } from '../common/logging';
import type { ServerManager } from '../common/server';
import { rawSettings } from '../common/settings';

const BASE_TITLE = 'Maguyva: Search';
const PLACEHOLDER = 'Search the workspace: a symbol, a phrase, a question, a pattern…';
/** Longest selection used as the initial query; a longer one is probably not a search term. */
const MAX_INITIAL_QUERY = 200;
const PRESET_ICONS: Readonly<Record<Preset, string>> = { quick: 'zap', standard: 'dashboard', thorough: 'telescope' };

interface HitItem extends vscode.QuickPickItem {
    hit?: SearchHit;
}

function presetButton(preset: Preset): vscode.QuickInputButton {
    return { iconPath: new vscode.ThemeIcon(PRESET_ICONS[preset]), tooltip: `Preset: ${preset} (click to switch)` };
}

function initialQuery(): string {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.selection.isEmpty || !editor.selection.isSingleLine) {
        return '';
    }
    const text = editor.document.getText(editor.selection).trim();
    return text.length <= MAX_INITIAL_QUERY ? text : '';
}

function messageItem(icon: string, text: string): HitItem {
    return { label: `$(${icon}) ${text}`, alwaysShow: true };
}

export class SearchPalette {
    /** The preset chosen with the palette's button; starts at the `maguyva.preset` setting. */
    private preset: Preset | undefined;

    constructor(
        private readonly server: ServerManager,
        private readonly logger: Logger,
    ) {}

    show(): void {
        const settingPreset = rawSettings().preset;
        let preset: Preset = this.preset ?? (isPreset(settingPreset) ? settingPreset : 'standard');
        const limitSetting = rawSettings().limit;
        const limit = typeof limitSetting === 'number' ? limitSetting : undefined;
        const pick = vscode.window.createQuickPick<HitItem>();
        pick.title = BASE_TITLE;
        pick.placeholder = PLACEHOLDER;
        pick.matchOnDescription = false;
        pick.matchOnDetail = false;
        pick.buttons = [presetButton(preset)];
        const original = vscode.window.activeTextEditor;
        const originalSelection = original?.selection;
        let accepted = false;
        let previewed: string | undefined;

        const live = new LiveQuery<SearchResponse>({
            send: (query) => {
                const cancel = new vscode.CancellationTokenSource();
                const promise = this.server.request<SearchResponse>(SEARCH_METHOD, { query, preset, limit }, cancel.token);
                return { promise, cancel: () => cancel.cancel() };
            },
            onAnswer: (_query, answer) => {
                const folders = folderUris();
                pick.title = searchTitle(answer, preset);
                pick.items = answer.results.length
                    ? answer.results.map((hit) => ({ ...paletteEntry(hit, folders), alwaysShow: true, hit }))
                    : [messageItem('info', 'No results')];
            },
            onError: (query, error) => {
                this.logger.warn(`Search for ${JSON.stringify(query)} failed: ${errorMessage(error)}`);
                pick.title = BASE_TITLE;
                pick.items = [messageItem('error', errorMessage(error))];
            },
            onBusy: (busy) => {
                pick.busy = busy;
            },
            onEmpty: () => {
                pick.title = BASE_TITLE;
                pick.items = [];
            },
        });

        pick.onDidChangeValue((value) => live.update(value));
        pick.onDidTriggerButton(() => {
            preset = nextPreset(preset);
            this.preset = preset;
            pick.buttons = [presetButton(preset)];
            live.refresh();
        });
        // Previews, the final open and the return to the original editor run in order; a superseded preview is skipped.
        const editorTasks = new LatestTasks((error) => this.logger.warn(`Opening a result failed: ${errorMessage(error)}`));
        pick.onDidChangeActive(([item]) => {
            const hit = item?.hit;
            const key = hit ? `${hit.uri}#${hit.range.start.line}:${hit.range.start.character}` : undefined;
            if (hit && key !== previewed) {
                previewed = key;
                void editorTasks.push(() => openLocation(hit.uri, hit.range, { preview: true }));
            }
        });
        pick.onDidAccept(() => {
            const hit = pick.selectedItems[0]?.hit;
            if (!hit) {
                return;
            }
            accepted = true;
            pick.hide();
            void editorTasks.push(() =>
                openLocation(hit.uri, hit.range).then(undefined, (error: unknown) =>
                    vscode.window.showErrorMessage(`Maguyva: cannot open ${hit.uri}: ${errorMessage(error)}`),
                ),
            );
        });
        pick.onDidHide(() => {
            live.dispose();
            pick.dispose();
            if (!accepted && previewed && original) {
                // Leaving without a choice returns to where the user was, as VS Code's own pickers do.
                void editorTasks.push(() =>
                    vscode.window.showTextDocument(original.document, {
                        viewColumn: original.viewColumn,
                        selection: originalSelection,
                    }),
                );
            }
        });

        if (!this.server.isRunning) {
            pick.items = [messageItem('warning', 'The Maguyva server is not running: see "Maguyva: Show Log"')];
        }
        const initial = initialQuery();
        pick.show();
        if (initial) {
            pick.value = initial;
            live.update(initial);
        }
    }
}
