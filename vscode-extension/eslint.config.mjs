// Lint rules: typed typescript-eslint on the extension and its tests; the vscode-free core must stay vscode-free.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeGlobals = {
    console: 'readonly',
    process: 'readonly',
    setTimeout: 'readonly',
    clearTimeout: 'readonly',
    URL: 'readonly',
    Buffer: 'readonly',
};

export default tseslint.config(
    { ignores: ['dist/**', 'out/**', 'node_modules/**'] },
    js.configs.recommended,
    {
        files: ['**/*.ts'],
        extends: [...tseslint.configs.recommendedTypeChecked, ...tseslint.configs.stylisticTypeChecked],
        languageOptions: {
            parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
        },
        rules: {
            eqeqeq: 'error',
            curly: 'error',
            'no-console': 'error',
            '@typescript-eslint/no-floating-promises': 'error',
            '@typescript-eslint/consistent-type-imports': 'error',
            '@typescript-eslint/explicit-module-boundary-types': 'error',
            // An empty string means "none" for the server's optional text fields.
            '@typescript-eslint/prefer-nullish-coalescing': ['error', { ignorePrimitives: { string: true } }],
        },
    },
    {
        files: ['src/core/**/*.ts'],
        rules: {
            'no-restricted-imports': [
                'error',
                {
                    paths: [
                        { name: 'vscode', message: 'src/core is tested without VS Code: keep vscode out of it.' },
                        { name: 'vscode-languageclient', message: 'src/core must not depend on the language client.' },
                        { name: 'vscode-languageclient/node', message: 'src/core must not depend on the language client.' },
                    ],
                },
            ],
        },
    },
    {
        files: ['test/**/*.ts'],
        rules: { '@typescript-eslint/no-floating-promises': 'off' },
    },
    {
        files: ['e2e/**/*.mjs', '*.mjs'],
        // `document` appears in functions that Playwright runs inside the page.
        languageOptions: { globals: { ...nodeGlobals, document: 'readonly' }, sourceType: 'module' },
        rules: { 'no-console': 'off' },
    },
);
