import { chmodSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareRunner, SANDBOX_PACKAGES } from '../../app/worker-action/sandbox-tools.js';
import { SandboxUnavailableError } from '../../app/machine/sandbox.js';

/**
 * The runner made ready for the sandbox: a PATH without bubblewrap, socat and ripgrep, and a
 * `sudo` on it that records what it is asked and "installs" the packages by linking the real
 * programs in, as apt-get would put them on PATH.
 */

const PATH = process.env.PATH;
const made: string[] = [];
afterEach(() => {
  process.env.PATH = PATH;
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function runnerWithout(sudo: 'installs' | 'refuses'): { bin: string; asked: () => string[] } {
  const bin = mkdtempSync(join(tmpdir(), 'runner-bin-'));
  made.push(bin);
  symlinkSync('/usr/bin/which', join(bin, 'which'));
  const log = join(bin, 'sudo.log');
  writeFileSync(log, '');
  const install =
    sudo === 'installs'
      ? `case "$*" in *"apt-get install"*) /bin/ln -sf /usr/bin/bwrap /usr/bin/socat /usr/bin/rg "${bin}/";; esac; exit 0`
      : 'echo "sudo: a password is required" >&2; exit 1';
  writeFileSync(join(bin, 'sudo'), `#!/bin/sh\necho "$*" >> "${log}"\n${install}\n`);
  chmodSync(join(bin, 'sudo'), 0o755);
  process.env.PATH = bin;
  return { bin, asked: () => readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

describe.skipIf(process.platform !== 'linux')('preparing a runner for the sandbox', () => {
  it('installs bubblewrap, socat and ripgrep with sudo -n when they are missing', async () => {
    const runner = runnerWithout('installs');
    const { did } = await prepareRunner({ PATH: runner.bin });
    expect(runner.asked()).toEqual([`-n apt-get install -y -qq ${SANDBOX_PACKAGES.join(' ')}`]);
    expect(did).toEqual(['installed bubblewrap, socat, ripgrep']);
  });

  it('says what the runner lacks and what to do when sudo cannot install them', async () => {
    const runner = runnerWithout('refuses');
    const err = await prepareRunner({ PATH: runner.bin }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SandboxUnavailableError);
    expect((err as Error).message).toBe(
      "the agents' sandbox (network: in .github/harness.yml) needs bubblewrap, socat, ripgrep on the runner, and they could not be installed with sudo: sudo: a password is required; install them in a step before the worker, or use an Ubuntu runner",
    );
    // Once as it is, once more after refreshing the package lists.
    expect(runner.asked()).toEqual([`-n apt-get install -y -qq ${SANDBOX_PACKAGES.join(' ')}`, '-n apt-get update -qq']);
  });

  it('does nothing on a runner that has them', async () => {
    process.env.PATH = PATH;
    expect(await prepareRunner()).toEqual({ did: [] });
  });
});
