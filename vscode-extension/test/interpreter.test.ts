import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { chooseInterpreter, declaresServerPackage, installCommand, shellQuote } from '../src/core/interpreter';

const CONTEXT = { workspaceFolder: '/ws', home: '/home/dev' };

test('the setting wins over the Python extension, which wins over the default', () => {
    assert.deepEqual(chooseInterpreter('~/venv/bin/python', '/usr/bin/python3.12', CONTEXT, 'linux'), {
        command: '/home/dev/venv/bin/python',
        source: 'setting',
    });
    assert.deepEqual(chooseInterpreter('  ', '/opt/py/bin/python', CONTEXT, 'linux'), {
        command: '/opt/py/bin/python',
        source: 'python-extension',
    });
    assert.deepEqual(chooseInterpreter(undefined, undefined, CONTEXT, 'linux'), { command: 'python3', source: 'default' });
    assert.deepEqual(chooseInterpreter(undefined, '', CONTEXT, 'win32'), { command: 'python', source: 'default' });
    assert.equal(chooseInterpreter('${workspaceFolder}/.venv/bin/python', undefined, CONTEXT, 'linux').command, '/ws/.venv/bin/python');
});

test('the install command quotes paths with spaces and quotes for the shell in use', () => {
    assert.equal(installCommand('/usr/bin/python3', 'maguyva-lsp', 'linux'), '/usr/bin/python3 -m pip install maguyva-lsp');
    assert.equal(
        installCommand('/home/a b/.venv/bin/python', "/src/it's here", 'linux'),
        `'/home/a b/.venv/bin/python' -m pip install '/src/it'"'"'s here'`,
    );
    assert.equal(
        installCommand('C:\\Program Files\\Python\\python.exe', 'maguyva-lsp', 'win32'),
        "& 'C:\\Program Files\\Python\\python.exe' -m pip install maguyva-lsp",
    );
    assert.equal(shellQuote('', 'linux'), "''");
});

test("this repository's pyproject.toml is recognised as the server's checkout; others are not", () => {
    const pyproject = readFileSync(join(__dirname, '..', '..', '..', 'pyproject.toml'), 'utf8');
    assert.equal(declaresServerPackage(pyproject), true);
    assert.equal(declaresServerPackage('[project]\nname = "maguyva-lsp-extras"\n'), false);
    assert.equal(declaresServerPackage("[project]\nname = 'maguyva_lsp'\n"), true);
});
