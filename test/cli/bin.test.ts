import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A checkout in miniature: the real bin/harness.js beside sources and a build whose CLIs
 * each say which they are, so the test sees which one the bin chose.
 */
async function checkout(): Promise<{ dir: string; run: (env?: Record<string, string>) => string; age: (path: string, secondsAgo: number) => void }> {
  const dir = await tempDir('harness-bin-');
  mkdirSync(join(dir, 'bin'));
  copyFileSync(join(ROOT, 'bin', 'harness.js'), join(dir, 'bin', 'harness.js'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  const cli = (said: string) =>
    `export async function main(argv: string[]): Promise<number> { process.stdout.write('${said} ' + argv.join(' ')); return 0; }\n`;
  mkdirSync(join(dir, 'app', 'cli', 'commands'), { recursive: true });
  writeFileSync(join(dir, 'app', 'cli', 'main.ts'), cli('sources'));
  writeFileSync(join(dir, 'app', 'cli', 'commands', 'validate.ts'), 'export const usage = "";\n');
  mkdirSync(join(dir, 'dist', 'app', 'cli'), { recursive: true });
  writeFileSync(join(dir, 'dist', 'app', 'cli', 'main.js'), cli('compiled').replace(': string[]', '').replace(': Promise<number>', ''));
  const run = (env: Record<string, string> = {}) =>
    execFileSync(process.execPath, [join(dir, 'bin', 'harness.js'), 'validate', 'x'], { encoding: 'utf8', env: { ...process.env, ...env } });
  const age = (path: string, secondsAgo: number) => {
    const at = new Date(Date.now() - secondsAgo * 1000);
    utimesSync(join(dir, path), at, at);
  };
  return { dir, run, age };
}

describe('bin/harness.js in a checkout', () => {
  it('runs the build when it is newer than every source, and the sources once one is edited after it', async () => {
    const { run, age } = await checkout();
    age('app/cli/main.ts', 60);
    age('app/cli/commands/validate.ts', 60);
    age('dist/app/cli/main.js', 30);
    expect(run()).toBe('compiled validate x');

    age('app/cli/commands/validate.ts', 10);
    expect(run()).toBe('sources validate x');
  });

  it('runs the sources when there is no build, or when HARNESS_FROM_SOURCE=1 says so', async () => {
    const { dir, run, age } = await checkout();
    age('app/cli/main.ts', 60);
    age('app/cli/commands/validate.ts', 60);
    expect(run({ HARNESS_FROM_SOURCE: '1' })).toBe('sources validate x');
    rmSync(join(dir, 'dist'), { recursive: true });
    expect(run()).toBe('sources validate x');
  });
});
