// The `maguyva.definitionFallback` policy as language-client middleware on textDocument/definition.

import * as vscode from 'vscode';
import type { Middleware } from 'vscode-languageclient/node';
import { definitionAction, othersFoundNothing, positionKey, ProbeGuard } from '../core/definition';
import type { DefinitionFallback } from '../core/settings';
import { errorMessage, type Logger } from './logging';

type Definitions = vscode.Definition | vscode.DefinitionLink[] | null | undefined;

/**
 * `always`: pass the request on; `off`: answer nothing; `whenNoOtherProvider`: run every definition provider through
 * `vscode.executeDefinitionProvider` (the probe) while asking our server in parallel, and answer only if the probe
 * found nothing. The probe calls this middleware again for the same position: the guard makes that call answer nothing.
 *
 * Passing on what the probe found instead of nothing was tried and dropped: VS Code does not merge a copied
 * LocationLink with the original when it carries a selection range, so every definition would be listed twice.
 * Known limit: while another provider is still starting (the TypeScript server loading its project) it may answer the
 * probe but not the user's own request, and that one F12 then finds nothing; the next one works.
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
        if (!othersFoundNothing(others)) {
            logger.debug(`definition at ${key}: other providers found ${others?.length ?? 0}; Maguyva stays silent`);
            return undefined;
        }
        logger.debug(`definition at ${key}: no other provider found one; Maguyva answers`);
        return ours;
    };
}
