// The `maguyva.definitionFallback` policy as language-client middleware on textDocument/definition.

import * as vscode from 'vscode';
import type { Middleware } from 'vscode-languageclient/node';
import { definitionAction, othersFoundNothing, positionKey, ProbeGuard } from '../core/definition';
import type { DefinitionFallback } from '../core/settings';
import { errorMessage, type Logger } from './logging';

type Definitions = vscode.Definition | vscode.DefinitionLink[] | null | undefined;

/** One result shape for all: a provider may not mix Locations and LocationLinks in one answer. */
function asLink(found: vscode.Location | vscode.LocationLink): vscode.DefinitionLink {
    return found instanceof vscode.Location ? { targetUri: found.uri, targetRange: found.range } : found;
}

/**
 * `always`: pass the request on; `off`: answer nothing; `whenNoOtherProvider`: run every definition provider through
 * `vscode.executeDefinitionProvider` (the probe) while asking our server in parallel; answer with the server's result
 * only if the probe found nothing. The probe calls this middleware again for the same position: the guard makes that
 * call answer nothing.
 *
 * When the probe did find definitions, they are returned as they are rather than nothing: VS Code drops a location that
 * two providers both report, and a provider that is still starting (the TypeScript server loading its project) may
 * answer the probe but not the user's own request that ran just before it. Without the copy, F12 would then find
 * nothing at all.
 */
export function definitionMiddleware(mode: () => DefinitionFallback, logger: Logger): Middleware['provideDefinition'] {
    const guard = new ProbeGuard();
    return async (document, position, token, next) => {
        const key = positionKey(document.uri.toString(), position.line, position.character);
        const action = definitionAction(mode(), guard.isProbing(key));
        if (action === 'skip') {
            logger.debug(`definition at ${key}: skipped (${guard.isProbing(key) ? 'our own probe' : 'fallback off'})`);
            return undefined;
        }
        if (action === 'answer') {
            return next(document, position, token);
        }
        const ours = Promise.resolve(next(document, position, token)).catch((error: unknown): Definitions => {
            logger.warn(`Definition request failed: ${errorMessage(error)}`);
            return undefined;
        });
        let others: readonly (vscode.Location | vscode.LocationLink)[] | undefined;
        try {
            others = await guard.run(key, () =>
                vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[] | undefined>(
                    'vscode.executeDefinitionProvider',
                    document.uri,
                    position,
                ),
            );
        } catch (error) {
            logger.warn(`Asking the other definition providers failed: ${errorMessage(error)}`);
        }
        if (token.isCancellationRequested) {
            return undefined;
        }
        if (others && !othersFoundNothing(others)) {
            logger.debug(`definition at ${key}: other providers found ${others.length}; relaying theirs, not Maguyva's`);
            return others.map(asLink);
        }
        logger.debug(`definition at ${key}: no other provider found one; Maguyva answers`);
        return ours;
    };
}
