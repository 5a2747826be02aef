// Opens server locations (URI + 0-based LSP range) in an editor.

import * as vscode from 'vscode';
import type { LspRange } from '../core/protocol';

export function toRange(range: LspRange): vscode.Range {
    return new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
}

export interface OpenOptions {
    /** Open as a preview tab without taking focus (e.g. while a quick pick stays open). */
    preview?: boolean;
}

/** Opens `uri` with the cursor at the start of `range` (a range may span a whole definition: selecting all of it would
 *  hide the cursor and make the next command act on the wrong end) and scrolls the range into view. */
export async function openLocation(uri: string, range: LspRange, options: OpenOptions = {}): Promise<vscode.TextEditor> {
    const target = toRange(range);
    const editor = await vscode.window.showTextDocument(vscode.Uri.parse(uri), {
        selection: new vscode.Range(target.start, target.start),
        preview: options.preview ?? false,
        preserveFocus: options.preview ?? false,
    });
    editor.revealRange(target, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    return editor;
}

export function folderUris(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.toString());
}
