import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StderrClassifier } from '../src/core/serverLog';

function levels(lines: string[]): string[] {
    const classifier = new StderrClassifier();
    return lines.map((line) => classifier.levelOf(line));
}

test('log records and the traceback of a logged exception are debug (they also arrive as window/logMessage)', () => {
    assert.deepEqual(
        levels([
            '2026-11-30 05:31:29,982 INFO maguyva_lsp.server.app: indexed /ws',
            '2026-11-30 05:32:52,531 ERROR maguyva_lsp.server.handlers: maguyva/search failed',
            'Traceback (most recent call last):',
            '  File "/x/handlers.py", line 160, in run',
            '    return engine.line_text(path, line)',
            "AttributeError: 'Engine' object has no attribute 'line_text'",
        ]),
        ['debug', 'debug', 'debug', 'debug', 'debug', 'debug'],
    );
});

test('anything else on stderr is an error: an import failure before the protocol starts, output after a record', () => {
    assert.deepEqual(
        levels([
            'Traceback (most recent call last):',
            '  File "<frozen runpy>", line 198, in _run_module_as_main',
            "ModuleNotFoundError: No module named 'pygls'",
        ]),
        ['error', 'error', 'error'],
    );
    assert.deepEqual(
        levels(['2026-11-30 05:31:29,982 WARNING maguyva_lsp.x: slow', 'Segmentation fault']),
        ['debug', 'error'],
    );
});
