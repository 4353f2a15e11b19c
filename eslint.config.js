// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const readonly = (/** @type {string[]} */ names) => Object.fromEntries(names.map((name) => [name, /** @type {const} */ ('readonly')]));

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'web/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The service, tests, scripts and build configs run on Node.
    ignores: ['web/src/**'],
    languageOptions: { globals: readonly(['process', 'console', 'Buffer', 'URL', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval']) },
  },
  {
    // The web app runs in the browser.
    files: ['web/src/**'],
    languageOptions: {
      globals: readonly(['window', 'document', 'navigator', 'location', 'console', 'fetch', 'Response', 'Headers', 'EventSource', 'XMLHttpRequest', 'FormData', 'File', 'Blob', 'URL', 'URLSearchParams', 'HTMLElement', 'HTMLInputElement', 'HTMLHeadingElement', 'setTimeout', 'clearTimeout']),
    },
  },
);
