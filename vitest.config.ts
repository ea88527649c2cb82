import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    setupFiles: ['test/setup.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // @actions/workflow-parser imports its JSON schemas without `with { type: 'json' }`, which
    // Node refuses; inlined, Vite loads them.
    server: { deps: { inline: ['@actions/workflow-parser'] } },
  },
});
