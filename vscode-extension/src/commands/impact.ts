// "Maguyva: Impact Analysis" (editor context menu): asks `maguyva/impact` for the symbol under the cursor and shows
// what depends on it, grouped by depth, in the Impact Analysis view.

import * as vscode from 'vscode';
import { groupByDepth, impactDescription, impactSummary, type DepthGroup } from '../core/impact';
import { IMPACT_METHOD, type ImpactedSymbol, type ImpactResponse } from '../core/protocol';
import { folderUris, openLocation } from '../common/locations';
import { errorMessage, type Logger } from '../common/logging';
import type { ServerManager } from '../common/server';

export const IMPACT_VIEW_ID = 'maguyva.impact';
export const OPEN_IMPACT_COMMAND = 'maguyva.impact.open';

type ImpactNode = { kind: 'group'; group: DepthGroup } | { kind: 'symbol'; item: ImpactedSymbol };

class ImpactTree implements vscode.TreeDataProvider<ImpactNode> {
    private groups: DepthGroup[] = [];
    private readonly changed = new vscode.EventEmitter<ImpactNode | undefined>();
    readonly onDidChangeTreeData = this.changed.event;

    set(groups: DepthGroup[]): void {
        this.groups = groups;
        this.changed.fire(undefined);
    }

    getChildren(node?: ImpactNode): ImpactNode[] {
        if (!node) {
            return this.groups.map((group) => ({ kind: 'group', group }));
        }
        return node.kind === 'group' ? node.group.items.map((item) => ({ kind: 'symbol', item })) : [];
    }

    getTreeItem(node: ImpactNode): vscode.TreeItem {
        if (node.kind === 'group') {
            const item = new vscode.TreeItem(node.group.label, vscode.TreeItemCollapsibleState.Expanded);
            item.id = `depth-${node.group.depth}`;
            item.iconPath = new vscode.ThemeIcon(node.group.depth <= 1 ? 'references' : 'type-hierarchy-sub');
            return item;
        }
        const impacted = node.item;
        const item = new vscode.TreeItem(impacted.symbol, vscode.TreeItemCollapsibleState.None);
        item.description = impactDescription(impacted, folderUris());
        item.tooltip = `${impacted.symbol} — ${item.description} (depth ${impacted.depth})`;
        item.iconPath = new vscode.ThemeIcon('symbol-function');
        item.resourceUri = vscode.Uri.parse(impacted.uri);
        item.command = { command: OPEN_IMPACT_COMMAND, title: 'Open', arguments: [impacted] };
        return item;
    }

    dispose(): void {
        this.changed.dispose();
    }
}

export class ImpactAnalysis implements vscode.Disposable {
    private readonly tree = new ImpactTree();
    private readonly view: vscode.TreeView<ImpactNode>;

    constructor(
        private readonly server: ServerManager,
        private readonly logger: Logger,
    ) {
        this.view = vscode.window.createTreeView(IMPACT_VIEW_ID, { treeDataProvider: this.tree, showCollapseAll: true });
    }

    /** Runs on the symbol at the active editor's cursor. */
    async run(): Promise<void> {
        const editor = vscode.window.activeTextEditor;
        if (!editor) {
            void vscode.window.showInformationMessage('Maguyva: put the cursor on a symbol in an editor first.');
            return;
        }
        // A selected word (double-click) has its cursor after the word: ask about where the selection starts.
        const position = editor.selection.isEmpty ? editor.selection.active : editor.selection.start;
        const params = {
            textDocument: { uri: editor.document.uri.toString() },
            position: { line: position.line, character: position.character },
        };
        let response: ImpactResponse;
        try {
            response = await vscode.window.withProgress(
                { location: { viewId: IMPACT_VIEW_ID }, title: 'Maguyva: impact analysis' },
                (_progress, token) => this.server.request<ImpactResponse>(IMPACT_METHOD, params, token),
            );
        } catch (error) {
            this.logger.warn(`Impact analysis failed: ${errorMessage(error)}`);
            void vscode.window.showErrorMessage(`Maguyva: impact analysis failed: ${errorMessage(error)}`);
            return;
        }
        const groups = groupByDepth(response.impacted);
        this.tree.set(groups);
        // The view header title-cases and truncates its title: the symbol goes in the description.
        this.view.description = response.symbol ?? undefined;
        const count = groups.reduce((sum, group) => sum + group.items.length, 0);
        this.view.message = impactSummary(response.symbol, count, response.note);
        await vscode.commands.executeCommand(`${IMPACT_VIEW_ID}.focus`);
    }

    clear(): void {
        this.tree.set([]);
        this.view.description = undefined;
        this.view.message = undefined;
    }

    async open(item: ImpactedSymbol): Promise<void> {
        try {
            await openLocation(item.uri, item.range);
        } catch (error) {
            void vscode.window.showErrorMessage(`Maguyva: cannot open ${item.uri}: ${errorMessage(error)}`);
        }
    }

    dispose(): void {
        this.view.dispose();
        this.tree.dispose();
    }
}

