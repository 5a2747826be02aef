// Which Python runs the server, and the command that installs the server into it.

import { expandPath, type PathContext } from './settings';

export type InterpreterSource = 'setting' | 'python-extension' | 'default';

export interface InterpreterChoice {
    command: string;
    source: InterpreterSource;
}

export const SERVER_MODULE = 'maguyva_lsp';
export const PACKAGE_NAME = 'maguyva-lsp';
/** Arguments that check the server can be imported; prints the package's location for the log. */
export const IMPORT_CHECK_ARGS: readonly string[] = ['-c', `import ${SERVER_MODULE}, sys; print(${SERVER_MODULE}.__file__)`];
/** Arguments that start the server; vscode-languageclient appends `--stdio`. */
export const SERVER_ARGS: readonly string[] = ['-m', SERVER_MODULE];

export function defaultInterpreter(platform: string): string {
    return platform === 'win32' ? 'python' : 'python3';
}

/** The `maguyva.interpreter` setting, else the Python extension's selection, else the platform's default. */
export function chooseInterpreter(
    setting: string | undefined,
    fromPythonExtension: string | undefined,
    context: PathContext,
    platform: string,
): InterpreterChoice {
    const configured = setting?.trim();
    if (configured) {
        return { command: expandPath(configured, context) ?? configured, source: 'setting' };
    }
    if (fromPythonExtension?.trim()) {
        return { command: fromPythonExtension.trim(), source: 'python-extension' };
    }
    return { command: defaultInterpreter(platform), source: 'default' };
}

export function sourceLabel(source: InterpreterSource): string {
    switch (source) {
        case 'setting':
            return 'the maguyva.interpreter setting';
        case 'python-extension':
            return "the Python extension's selected interpreter";
        case 'default':
            return 'the default interpreter';
    }
}

const SAFE_SHELL_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Quotes one argument for a POSIX shell or PowerShell-like terminal (single quotes, doubled inside on Windows). */
export function shellQuote(argument: string, platform: string): string {
    if (argument && SAFE_SHELL_WORD.test(argument)) {
        return argument;
    }
    if (platform === 'win32') {
        return `'${argument.replace(/'/g, "''")}'`;
    }
    return `'${argument.replace(/'/g, `'"'"'`)}'`;
}

/** `python -m pip install <spec>` for the terminal; `spec` is a checkout's folder or the package name. */
export function installCommand(python: string, spec: string, platform: string): string {
    const quotedPython = shellQuote(python, platform);
    // PowerShell runs a quoted program only after the call operator.
    const program = platform === 'win32' && quotedPython.startsWith("'") ? `& ${quotedPython}` : quotedPython;
    return `${program} -m pip install ${shellQuote(spec, platform)}`;
}

/** Whether a pyproject.toml's text declares this server's package (a checkout the user can install from). */
export function declaresServerPackage(pyprojectText: string): boolean {
    return /^\s*name\s*=\s*["']maguyva[-_]lsp["']\s*$/m.test(pyprojectText);
}
