// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    // The engine is pure: it takes ports and never reaches for I/O, GitHub or Actions.
    files: ['app/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:fs', 'node:fs/*', 'fs', 'fs/*', 'node:child_process', 'child_process', 'node:net', 'node:http', 'node:https'], message: 'The engine does no I/O: take a port instead.' },
            { group: ['@octokit/*', 'octokit', 'probot', '@actions/*'], message: 'The engine never talks to GitHub or Actions directly: that belongs in an adapter.' },
            { group: ['../local/*', '../../local/*', '../cli/*', '../../cli/*', '../github/*', '../../github/*', '../workers/*', '../../workers/*'], message: 'The engine must not depend on its adapters.' },
          ],
        },
      ],
    },
  },
);
