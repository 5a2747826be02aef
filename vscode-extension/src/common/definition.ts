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
 */
export function definitionMiddleware(mode: () => DefinitionFallback, logger: Logger): Middleware['provideDefinition'] {
    const guard = new ProbeGuard();
    return async (document, position, token, next) => {
        const key = positionKey(document.uri.toString(), position.line, position.character);
        const action = definitionAction(mode(), guard.isProbing(key));
        if (action === 'skip') {
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
        if (token.isCancellationRequested || !othersFoundNothing(others)) {
            return undefined;
        }
        return ours;
    };
}
