// Drives a running code-server (with the packaged extension installed) in headless Chromium, as a user would:
// status bar count, search palette, right-click impact analysis, F12 definition fallback. A screenshot per step.
// Usage: node vscode.e2e.mjs --url URL --workspace DIR --out SCREENSHOT_DIR [--data USER_DATA_DIR]
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { locate } from './workspace.mjs';

const { values: args } = parseArgs({
    options: {
        url: { type: 'string' },
        workspace: { type: 'string' },
        out: { type: 'string' },
        /** code-server's --user-data-dir: its settings and logs are searched for the API key. */
        data: { type: 'string' },
        chromium: { type: 'string', default: '/usr/bin/chromium' },
    },
});
if (!args.url || !args.out) {
    console.error('usage: node vscode.e2e.mjs --url URL --workspace DIR --out SCREENSHOT_DIR');
    process.exit(2);
}

/** Indexing a tiny workspace is quick, but the server's first start imports its parsers and models. */
const INDEX_TIMEOUT_MS = 180_000;
const UI_TIMEOUT_MS = 30_000;
/** F12 attempts in TypeScript while its server may still be loading the project, and the pause between them. */
const TS_ATTEMPTS = 5;
const TS_RETRY_MS = 2_000;
const VIEWPORT = { width: 1280, height: 800 };
const CHROMIUM_FLAGS = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
];

mkdirSync(args.out, { recursive: true });
const browser = await chromium.launch({ executablePath: args.chromium, args: CHROMIUM_FLAGS, headless: true });
const page = await browser.newPage({ viewport: VIEWPORT });
let shots = 0;
let passed = 0;

async function shot(name) {
    shots += 1;
    const path = join(args.out, `${String(shots).padStart(2, '0')}-${name}.png`);
    await page.screenshot({ path });
    return path;
}

async function check(name, body) {
    const started = Date.now();
    await body();
    passed += 1;
    console.log(`ok ${passed} - ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

function fail(message) {
    throw new Error(message);
}

const quickRows = () => page.locator('.quick-input-widget .monaco-list-row');

/** "Ln 16, Col 6" from the status bar, as numbers. */
async function cursorPosition() {
    const text = (await page.locator('[id="status.editor.selection"]').first().textContent()) ?? '';
    const match = /Ln (\d+), Col (\d+)/.exec(text);
    return match ? { line: Number(match[1]), column: Number(match[2]) } : undefined;
}

/** Waits until the status bar shows the cursor on `line` (it updates a moment after the cursor moves). */
async function waitForCursorLine(line, what) {
    try {
        await page.waitForFunction(
            (wanted) => (document.querySelector('[id="status.editor.selection"]')?.textContent ?? '').startsWith(`Ln ${wanted},`),
            line,
            { timeout: UI_TIMEOUT_MS },
        );
    } catch {
        fail(`${what}: the cursor is at ${JSON.stringify(await cursorPosition())}, not on line ${line}`);
    }
}

/** Waits until the active editor tab is the workspace file `relativePath`. */
async function waitForEditor(relativePath) {
    await page.waitForFunction(
        (suffix) => document.querySelector('.tab.active .tab-label')?.getAttribute('aria-label')?.endsWith(suffix) ?? false,
        `/${relativePath}`,
        { timeout: UI_TIMEOUT_MS },
    );
}

/** Waits until a quick input titled `title` (or any, without one) is shown with its text box focused: keys typed
 *  earlier would land in the editor, or in a quick input that is still closing. */
async function waitForQuickInput(title) {
    await page.waitForFunction(
        (wanted) => {
            const widget = document.querySelector('.quick-input-widget');
            if (!widget || widget.style.display === 'none' || !widget.contains(document.activeElement)) {
                return false;
            }
            return !wanted || (widget.querySelector('.quick-input-title')?.textContent ?? '').includes(wanted);
        },
        title,
        { timeout: UI_TIMEOUT_MS },
    );
}

/** How long the quick pick's list must stay unchanged to count as settled (beyond the palette's debounce). */
const SETTLE_MS = 500;

/** Waits until the quick pick shows no progress and its rows stay the same for SETTLE_MS. */
async function waitForSettledList() {
    const snapshot = () =>
        page.evaluate(() =>
            document.querySelector('.quick-input-widget .monaco-progress-container.active')
                ? undefined
                : [...document.querySelectorAll('.quick-input-widget .monaco-list-row')].map((row) => row.textContent).join('\n'),
        );
    const deadline = Date.now() + UI_TIMEOUT_MS;
    let previous = await snapshot();
    while (Date.now() < deadline) {
        await page.waitForTimeout(SETTLE_MS);
        const current = await snapshot();
        if (current !== undefined && current === previous) {
            return;
        }
        previous = current;
    }
    fail('the palette did not settle on an answer');
}

/** Runs a command from the command palette (F1) by its title. */
async function runCommand(title) {
    await page.keyboard.press('F1');
    await waitForQuickInput();
    await page.keyboard.type(title, { delay: 20 });
    await quickRows().filter({ hasText: title }).first().waitFor({ timeout: UI_TIMEOUT_MS });
    await page.keyboard.press('Enter');
}

/** Largest file searched for a leaked key; code-server's data folder holds nothing bigger that could hold one. */
const MAX_SEARCHED_BYTES = 16 * 1024 * 1024;

/** The regular files under `dir` that contain `text`. */
function filesContaining(dir, text) {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => join(entry.parentPath, entry.name))
        .filter((file) => statSync(file).size <= MAX_SEARCHED_BYTES && readFileSync(file).includes(text));
}

/** Quick Open (Ctrl+P) by file name. */
async function openFile(relativePath) {
    await page.keyboard.press('Control+P');
    await waitForQuickInput();
    await page.keyboard.type(relativePath, { delay: 20 });
    await quickRows().filter({ hasText: relativePath.split('/').pop() }).first().waitFor({ timeout: UI_TIMEOUT_MS });
    await page.keyboard.press('Enter');
    await waitForEditor(relativePath);
    // A click while Quick Open is still closing lands on it instead of the editor.
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
}

/** The token `word` on the first editor line matching `linePattern`, in the active editor. */
function wordInLine(linePattern, word) {
    return page
        .locator('.editor-group-container.active .monaco-editor .view-line')
        .filter({ hasText: linePattern })
        .first()
        .locator('span > span')
        .filter({ hasText: new RegExp(`^${word}$`) })
        .first();
}

try {
    for (let attempt = 0; ; attempt += 1) {
        try {
            await page.goto(args.url, { waitUntil: 'domcontentloaded', timeout: UI_TIMEOUT_MS });
            break;
        } catch (error) {
            if (attempt >= 5) {
                throw error;
            }
            await page.waitForTimeout(1_000);
        }
    }
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });

    await check('the status bar shows the indexed count', async () => {
        // Not the "0 files" a server may report in the moment before its first indexing run starts.
        const item = page.locator('.statusbar-item').filter({ hasText: /Maguyva: [1-9][\d,]* files? · [1-9][\d,]* symbols?/ });
        await item.first().waitFor({ timeout: INDEX_TIMEOUT_MS });
        const text = (await item.first().textContent()) ?? '';
        const [, files, symbols] = /([\d,]+) files? · ([\d,]+) symbols?/.exec(text) ?? [];
        if (Number(files?.replace(/,/g, '')) < 3 || Number(symbols?.replace(/,/g, '')) < 3) {
            fail(`too few files or symbols indexed: ${text}`);
        }
        await shot('status-bar');
        await item.first().click();
        await quickRows().filter({ hasText: 'symbols' }).first().waitFor({ timeout: UI_TIMEOUT_MS });
        await shot('status-details');
        await page.keyboard.press('Escape');
    });

    const definition = locate('config/config.go', 'func ParseConfig');
    await check('the search palette (Ctrl+Alt+M) returns a real result and opens it', async () => {
        await openFile('main.go');
        await page.keyboard.press('Control+Alt+M');
        await waitForQuickInput('Maguyva: Search');
        await page.keyboard.type('ParseConfig', { delay: 40 });
        // An earlier prefix may answer first: read the list once it has settled on the answer to the whole text.
        await waitForSettledList();
        const row = quickRows().filter({ hasText: 'ParseConfig' }).filter({ hasText: 'config/config.go' }).first();
        const errorRow = quickRows().filter({ has: page.locator('.codicon-error') }).first();
        await row.or(errorRow).waitFor({ timeout: UI_TIMEOUT_MS });
        if (await errorRow.isVisible()) {
            fail(`the search failed: ${await errorRow.textContent()}`);
        }
        const title = (await page.locator('.quick-input-widget .quick-input-title').first().textContent()) ?? '';
        if (!/Maguyva: .+ · .+ · (quick|standard|thorough) · \d+ results? in/.test(title)) {
            fail(`the palette title does not show intent and strategy: ${JSON.stringify(title)}`);
        }
        const first = ((await quickRows().first().textContent()) ?? '').replace(/\s+/g, ' ');
        if (!first.includes('ParseConfig') || !first.includes('config/config.go')) {
            fail(`the first result is not the definition of ParseConfig: ${first}`);
        }
        const [, line] = /config\/config\.go:(\d+)/.exec(first) ?? [];
        await shot('palette');
        await page.keyboard.press('Enter');
        await waitForEditor('config/config.go');
        await page.waitForTimeout(300);
        const cursor = await cursorPosition();
        if (cursor?.line !== Number(line)) {
            fail(`opened at ${JSON.stringify(cursor)}, the result said line ${line}`);
        }
        await shot('palette-opened');
    });

    await check('right-click → Maguyva: Impact Analysis lists a real caller', async () => {
        await openFile('config/config.go');
        const word = wordInLine(/func\s+ParseConfig/, 'ParseConfig');
        await word.click();
        await word.click({ button: 'right' });
        const entry = page.locator('.context-view .action-item').filter({ hasText: 'Maguyva: Impact Analysis' }).first();
        await entry.waitFor({ timeout: UI_TIMEOUT_MS });
        await shot('context-menu');
        await entry.click();
        const caller = page.locator('.part.sidebar .monaco-list-row').filter({ hasText: 'StartServer' }).first();
        await caller.waitFor({ timeout: UI_TIMEOUT_MS });
        const tree = ((await page.locator('.part.sidebar').first().textContent()) ?? '').replace(/\s+/g, ' ');
        if (!/Direct dependents \(\d+\)/.test(tree) || !tree.includes('server/server.go:')) {
            fail(`the impact view does not group the caller by depth: ${tree}`);
        }
        await shot('impact');
        await caller.click();
        await waitForEditor('server/server.go');
        await shot('impact-opened');
    });

    await check('F12 in a Go file (no other definition provider) jumps to the definition', async () => {
        await openFile('server/server.go');
        const call = locate('server/server.go', 'ParseConfig(path)');
        const word = wordInLine(/config\.ParseConfig\(path\)/, 'ParseConfig');
        await word.click();
        await waitForCursorLine(call.line, 'clicking the call');
        await page.keyboard.press('F12');
        await waitForEditor('config/config.go');
        await page.waitForTimeout(300);
        const cursor = await cursorPosition();
        // A definition's range may start at its doc comment, one line above the `func` line.
        if (!cursor || cursor.line < definition.line - 1 || cursor.line > definition.line) {
            fail(`F12 landed at ${JSON.stringify(cursor)}, the definition is on line ${definition.line}`);
        }
        await shot('definition');
    });

    await check('F12 in TypeScript (VS Code has a definition provider) gives the TypeScript answer alone', async () => {
        await openFile('web/bill.ts');
        const call = locate('web/bill.ts', 'total()}');
        const invoiceTotal = locate('web/bill.ts', 'class Invoice').line + 1;
        const word = wordInLine(/invoice\.total\(\)/, 'total');
        await word.click();
        await waitForCursorLine(call.line, 'clicking the call');
        // Maguyva's name-based answer adds Cart.total: two definitions would open a peek view instead of jumping.
        const peek = page.locator('.peekview-widget').first();
        const nothing = page.locator('.monaco-editor-overlaymessage').filter({ hasText: 'No definition found' }).first();
        for (let attempt = 1; ; attempt += 1) {
            await page.keyboard.press('F12');
            await page.waitForFunction(
                (line) =>
                    document.querySelector('.peekview-widget') !== null ||
                    (document.querySelector('.monaco-editor-overlaymessage')?.textContent ?? '').includes('No definition') ||
                    (document.querySelector('[id="status.editor.selection"]')?.textContent ?? '').startsWith(`Ln ${line},`),
                invoiceTotal,
                { timeout: UI_TIMEOUT_MS },
            );
            // While the TypeScript server loads its project, it may answer nobody: try again, as a user would.
            if (!(await nothing.isVisible()) || attempt >= TS_ATTEMPTS) {
                break;
            }
            await page.waitForTimeout(TS_RETRY_MS);
            await page.keyboard.press('Escape');
            await word.click();
        }
        await page.waitForTimeout(500);
        if (await peek.isVisible()) {
            await shot('definition-typescript-peek');
            fail('F12 offered more than one definition: Maguyva answered next to the TypeScript provider');
        }
        await waitForCursorLine(invoiceTotal, 'F12 on invoice.total()');
        await shot('definition-typescript');
    });

    if (args.data) {
        await check('the Voyage API key goes to secret storage, not to settings, logs or any file', async () => {
            const key = `pa-e2e-${Date.now()}-not-a-real-key`;
            await runCommand('Maguyva: Set Voyage API Key');
            await page.locator('.quick-input-widget input[type="password"]').first().waitFor({ timeout: UI_TIMEOUT_MS });
            await page.keyboard.type(key, { delay: 5 });
            await page.keyboard.press('Enter');
            await page.locator('.notification-toast').filter({ hasText: 'Voyage API key stored' }).first().waitFor({ timeout: UI_TIMEOUT_MS });
            await page.waitForTimeout(500);
            await shot('api-key-stored');
            // Settings, logs, storage databases: the key must be in none of them as plain text.
            const leaks = filesContaining(args.data, key);
            if (leaks.length > 0) {
                fail(`the API key was written to ${leaks.join(', ')}`);
            }
        });
    }

    console.log(`screenshots: ${args.out}`);
    console.log(`e2e: ${passed} passed, 0 failed`);
} catch (error) {
    console.error(`not ok - ${error instanceof Error ? error.message : String(error)}`);
    try {
        console.error(`failure screenshot: ${await shot('failure')}`);
    } catch {
        // The page may be gone; the error above is what matters.
    }
    console.log(`screenshots: ${args.out}`);
    console.log(`e2e: ${passed} passed, 1 failed`);
    process.exitCode = 1;
} finally {
    await browser.close();
}
