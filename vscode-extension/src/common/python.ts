// Finds the Python that runs the server (setting, else the Python extension's choice, else python3), checks that
// maguyva_lsp imports there, and offers the install command when it does not.

import { execFile } from 'node:child_process';
import * as vscode from 'vscode';
import {
    chooseInterpreter,
    declaresServerPackage,
    IMPORT_CHECK_ARGS,
    installCommand,
    PACKAGE_NAME,
    sourceLabel,
    type InterpreterChoice,
} from '../core/interpreter';
import { errorMessage, type Logger } from './logging';
import { pathContext, rawSettings } from './settings';

const PYTHON_EXTENSION_ID = 'ms-python.python';
/** Importing the package is quick; a slow first import after an install (bytecode compilation) still fits. */
const IMPORT_CHECK_TIMEOUT_MS = 30_000;

/** The slice of the Python extension's public API that is used here. */
interface PythonEnvironmentsApi {
    getActiveEnvironmentPath(resource?: vscode.Uri): { id: string; path: string };
    resolveEnvironment(environment: { id: string; path: string } | string): Promise<
        { executable: { uri?: vscode.Uri } } | undefined
    >;
    onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
}

interface PythonExtensionApi {
    environments?: PythonEnvironmentsApi;
}

async function pythonEnvironments(logger: Logger): Promise<PythonEnvironmentsApi | undefined> {
    const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION_ID);
    if (!extension) {
        return undefined;
    }
    try {
        const api = extension.isActive ? extension.exports : await extension.activate();
        return api?.environments;
    } catch (error) {
        logger.warn(`Could not use the Python extension: ${errorMessage(error)}`);
        return undefined;
    }
}

async function pythonExtensionInterpreter(logger: Logger): Promise<string | undefined> {
    const environments = await pythonEnvironments(logger);
    if (!environments) {
        return undefined;
    }
    try {
        const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
        const active = environments.getActiveEnvironmentPath(resource);
        const resolved = await environments.resolveEnvironment(active);
        return resolved?.executable.uri?.fsPath ?? active.path;
    } catch (error) {
        logger.warn(`The Python extension did not name an interpreter: ${errorMessage(error)}`);
        return undefined;
    }
}

/** Calls `listener` when the user picks another interpreter in the Python extension. */
export async function onPythonInterpreterChange(logger: Logger, listener: () => void): Promise<vscode.Disposable | undefined> {
    const environments = await pythonEnvironments(logger);
    return environments?.onDidChangeActiveEnvironmentPath(() => listener());
}

export async function resolveInterpreter(logger: Logger): Promise<InterpreterChoice> {
    const setting = rawSettings().interpreter;
    const configured = typeof setting === 'string' ? setting : undefined;
    const fromExtension = configured?.trim() ? undefined : await pythonExtensionInterpreter(logger);
    return chooseInterpreter(configured, fromExtension, pathContext(), process.platform);
}

export type ImportCheck = { ok: true; location: string } | { ok: false; reason: string };

export function checkServerImportable(python: string): Promise<ImportCheck> {
    return new Promise((resolve) => {
        execFile(python, [...IMPORT_CHECK_ARGS], { timeout: IMPORT_CHECK_TIMEOUT_MS }, (error, stdout, stderr) => {
            if (error) {
                const lastLine = stderr.trim().split('\n').pop() ?? '';
                resolve({ ok: false, reason: lastLine || error.message });
            } else {
                resolve({ ok: true, location: stdout.trim() });
            }
        });
    });
}

/** A workspace folder that is a checkout of the server (install from it), else the package name. */
async function installSpec(): Promise<string> {
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
        const pyproject = vscode.Uri.joinPath(folder.uri, 'pyproject.toml');
        try {
            const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(pyproject));
            if (declaresServerPackage(text)) {
                return folder.uri.fsPath;
            }
        } catch {
            // No pyproject.toml in this folder.
        }
    }
    return PACKAGE_NAME;
}

const INSTALL = 'Install in Terminal';
const COPY = 'Copy Command';
const CHOOSE = 'Choose Interpreter';
const RESTART = 'Restart Server';

/** Tells the user the server is not importable from `choice` and offers to install it. */
export async function offerInstall(choice: InterpreterChoice, reason: string, logger: Logger): Promise<void> {
    const command = installCommand(choice.command, await installSpec(), process.platform);
    logger.error(`maguyva_lsp is not importable by ${choice.command} (${sourceLabel(choice.source)}): ${reason}`);
    logger.info(`Install it with: ${command}`);
    const answer = await vscode.window.showErrorMessage(
        `Maguyva: the language server is not installed for ${choice.command} (${sourceLabel(choice.source)}). ` +
            `Install it with: ${command}`,
        INSTALL,
        COPY,
        CHOOSE,
    );
    if (answer === INSTALL) {
        const terminal = vscode.window.createTerminal('Maguyva: install');
        terminal.show();
        terminal.sendText(command);
        const next = await vscode.window.showInformationMessage('Maguyva: restart the server when the install has finished.', RESTART);
        if (next === RESTART) {
            await vscode.commands.executeCommand('maguyva.restartServer');
        }
    } else if (answer === COPY) {
        await vscode.env.clipboard.writeText(command);
    } else if (answer === CHOOSE) {
        await vscode.commands.executeCommand('workbench.action.openSettings', 'maguyva.interpreter');
    }
}
