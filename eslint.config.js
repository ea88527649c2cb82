// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layersPlugin } from './eslint/layers.js';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'actions/*/dist/', 'coverage/', '.scratch/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly' },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
      'no-console': 'off',
    },
  },
  {
    // Who may import whom (eslint/layers.js; docs/architecture.md draws it).
    files: ['app/**/*.ts', 'actions/*/src/**/*.ts'],
    plugins: { harness: layersPlugin },
    rules: {
      'harness/imports': 'error',
      // An orchestrator reads as the story of what it does: named steps of at most 60 lines.
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  {
    // The engine is pure: no environment, no clock and no timers of its own; it takes ports.
    files: ['app/engine/**/*.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        ...['process', 'fetch', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'setImmediate', 'performance'].map((name) => ({
          name,
          message: `The engine reads no environment, clock or network of its own: take it as a port (a Clock, the caller's env).`,
        })),
      ],
      'no-restricted-properties': ['error', { object: 'Date', property: 'now', message: 'The engine reads no clock of its own: take a Clock.' }],
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'The engine reads no clock of its own: take a Clock (clock.now()).' },
      ],
    },
  },
);
