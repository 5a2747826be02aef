import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    configurationPayload,
    DEFAULT_MAX_FILE_SIZE,
    definitionFallback,
    expandPath,
    needsRestart,
    translateSettings,
} from '../src/core/settings';

const CONTEXT = { workspaceFolder: '/ws', home: '/home/dev' };
const KEY = 'pa-0123456789abcdef0123';

test('no settings at all give the server defaults and no problems', () => {
    const { settings, problems, missingApiKey } = translateSettings({}, undefined, CONTEXT);
    assert.deepEqual(settings, {
        preset: 'standard',
        limit: 20,
        embedder: 'local',
        voyageModel: 'voyage-code-3',
        voyageDimension: 1024,
        exclude: [],
        maxFileSize: DEFAULT_MAX_FILE_SIZE,
        indexDir: null,
        logLevel: 'info',
    });
    assert.deepEqual(problems, []);
    assert.equal(missingApiKey, false);
});

test('valid settings pass through, excludes trimmed and emptied entries dropped', () => {
    const { settings, problems } = translateSettings(
        {
            preset: 'thorough',
            limit: 50,
            embedder: 'local',
            voyageDimension: 512,
            exclude: [' vendor/** ', '', '*.min.js'],
            maxFileSize: 2048,
            logLevel: 'debug',
            indexDir: '${workspaceFolder}/.maguyva',
        },
        KEY,
        CONTEXT,
    );
    assert.deepEqual(problems, []);
    assert.equal(settings.preset, 'thorough');
    assert.equal(settings.limit, 50);
    assert.equal(settings.voyageDimension, 512);
    assert.deepEqual(settings.exclude, ['vendor/**', '*.min.js']);
    assert.equal(settings.maxFileSize, 2048);
    assert.equal(settings.logLevel, 'debug');
    assert.equal(settings.indexDir, '/ws/.maguyva');
    // The key is sent only to a server that will use it.
    assert.equal(settings.voyageApiKey, undefined);
});

test('bad values keep their defaults, each with a message naming the setting', () => {
    const { settings, problems } = translateSettings(
        { preset: 'turbo', limit: 0, embedder: 'openai', voyageDimension: 300, exclude: 'vendor', maxFileSize: 1.5, logLevel: 'loud' },
        undefined,
        CONTEXT,
    );
    assert.equal(settings.preset, 'standard');
    assert.equal(settings.limit, 20);
    assert.equal(settings.embedder, 'local');
    assert.equal(settings.voyageDimension, 1024);
    assert.deepEqual(settings.exclude, []);
    assert.equal(settings.maxFileSize, DEFAULT_MAX_FILE_SIZE);
    assert.equal(settings.logLevel, 'info');
    const named = problems.map((problem) => problem.split(':')[0]);
    assert.deepEqual(named, [
        'maguyva.preset',
        'maguyva.embedder',
        'maguyva.exclude',
        'maguyva.limit',
        'maguyva.voyageDimension',
        'maguyva.maxFileSize',
        'maguyva.logLevel',
    ]);
    assert.match(problems[0] ?? '', /"turbo"; using "standard"/);
});

test('the Voyage key is included only with the voyage embedder, and its absence is reported', () => {
    const withKey = translateSettings({ embedder: 'voyage' }, `  ${KEY}\n`, CONTEXT);
    assert.equal(withKey.settings.voyageApiKey, KEY);
    assert.equal(withKey.missingApiKey, false);
    const withoutKey = translateSettings({ embedder: 'voyage' }, '   ', CONTEXT);
    assert.equal(withoutKey.settings.voyageApiKey, undefined);
    assert.equal(withoutKey.missingApiKey, true);
    assert.ok(!JSON.stringify(withoutKey).includes(KEY));
});

test('paths expand ${workspaceFolder}, ${userHome} and ~, or report what cannot be expanded', () => {
    assert.equal(expandPath('~/cache', CONTEXT), '/home/dev/cache');
    assert.equal(expandPath('${userHome}/x', CONTEXT), '/home/dev/x');
    assert.equal(expandPath(' ${workspaceFolder}/idx ', CONTEXT), '/ws/idx');
    assert.equal(expandPath('/abs/~x', CONTEXT), '/abs/~x');
    assert.equal(expandPath('${workspaceFolder}/idx', { home: '/h' }), undefined);
    const { settings, problems } = translateSettings({ indexDir: '${workspaceFolder}/idx' }, undefined, { home: '/h' });
    assert.equal(settings.indexDir, null);
    assert.match(problems[0] ?? '', /^maguyva\.indexDir: cannot expand/);
});

test('didChangeConfiguration carries the settings under the maguyva section', () => {
    const { settings } = translateSettings({ limit: 7 }, undefined, CONTEXT);
    assert.deepEqual(configurationPayload(settings), { settings: { maguyva: settings } });
});

test('only an interpreter change needs a restart', () => {
    assert.equal(needsRestart((key) => key === 'maguyva.interpreter'), true);
    assert.equal(needsRestart((key) => key === 'maguyva.preset'), false);
});

test('the definition fallback defaults to whenNoOtherProvider', () => {
    assert.equal(definitionFallback({ definitionFallback: 'always' }), 'always');
    assert.equal(definitionFallback({ definitionFallback: 'off' }), 'off');
    assert.equal(definitionFallback({ definitionFallback: 'sometimes' }), 'whenNoOtherProvider');
    assert.equal(definitionFallback({}), 'whenNoOtherProvider');
});
