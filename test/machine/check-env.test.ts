/**
 * Checks run without this process's credentials: a check that prints its environment
 * (`env`, `set -x`, an error dump) cannot put a token into a SUMMARY, a VERIFICATION or a
 * check run. What a check's own `env:` gives it, it gets.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkEnv, isSecretName } from '../../app/machine/check-env.js';
import { localVerifyPorts } from '../../app/machine/verify-ports.js';

const SECRETS = {
  GITHUB_TOKEN: 'ghp_' + 'a'.repeat(36),
  GH_TOKEN: 'gho_x',
  AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  ANTHROPIC_API_KEY: 'sk-ant-x',
  GEMINI_API_KEY: 'AIza-x',
  GOOGLE_API_KEY: 'AIza-y',
  INPUT_TOKEN: 'ghs_y',
  NPM_AUTH_TOKEN: 'npm_z',
};
const saved = { ...process.env };
afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
});

describe('the environment of checks', () => {
  it('holds none of the process credentials, and everything else it had', async () => {
    Object.assign(process.env, SECRETS, { HARMLESS_SETTING: 'kept' });
    const ports = localVerifyPorts(mkdtempSync(join(tmpdir(), 'harness-check-env-')));
    const result = await ports.exec('env', { timeoutMs: 10_000 });
    for (const value of Object.values(SECRETS)) expect(result.stdout).not.toContain(value);
    expect(result.stdout).toContain('HARMLESS_SETTING=kept');
    expect(result.stdout).toContain('PATH=');
    await ports.close();
  });

  it('gives a check what its own env: names, credential or not', async () => {
    const ports = localVerifyPorts(mkdtempSync(join(tmpdir(), 'harness-check-env-')));
    const result = await ports.exec('printf %s "$SERVICE_TOKEN"', { timeoutMs: 10_000, env: { SERVICE_TOKEN: 'given' } });
    expect(result.stdout).toBe('given');
    await ports.close();
  });

  it('names credentials by what they are called', () => {
    for (const name of Object.keys(SECRETS)) expect(isSecretName(name), name).toBe(true);
    for (const name of ['PATH', 'HOME', 'NODE_ENV', 'LANG', 'CI', 'PORT']) expect(isSecretName(name), name).toBe(false);
    expect(checkEnv({ PATH: '/bin', GITHUB_TOKEN: 'x' })).toEqual({ PATH: '/bin' });
  });
});
