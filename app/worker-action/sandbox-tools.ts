import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { SandboxManager } from '@anthropic-ai/sandbox-runtime';
import { MachineSandboxes, SandboxUnavailableError, type SandboxPolicy } from '../machine/sandbox.js';

const run = promisify(execFile);

/** What the sandbox needs on a Linux runner, as Debian and Ubuntu name it. */
export const SANDBOX_PACKAGES = ['bubblewrap', 'socat', 'ripgrep'];
/** Ubuntu 24.04 lets unprivileged user namespaces exist but strips their capabilities unless this is 0: bubblewrap needs them. */
const APPARMOR_USERNS = '/proc/sys/kernel/apparmor_restrict_unprivileged_userns';

export interface SandboxSetUp {
  /** What was done to the runner, for the job's log. */
  did: string[];
}

/**
 * Make a GitHub-hosted (or any sudo-capable Debian-family) Linux runner able to run the agents'
 * sandbox: install bubblewrap, socat and ripgrep when missing, and lift Ubuntu's AppArmor
 * restriction on user namespaces, with `sudo -n` (a runner without passwordless sudo gets the
 * packages' names in the error instead).
 */
export async function prepareRunner(env: Record<string, string | undefined> = process.env): Promise<SandboxSetUp> {
  const did: string[] = [];
  if (process.platform !== 'linux') return { did };
  const sudo = async (...args: string[]) =>
    run('sudo', ['-n', ...args], { env: { ...process.env, ...env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 300_000 });
  if (SandboxManager.checkDependencies().errors.length > 0) {
    try {
      await sudo('apt-get', 'install', '-y', '-qq', ...SANDBOX_PACKAGES).catch(async () => {
        // A fresh image's package lists may be older than its mirror: once more after an update.
        await sudo('apt-get', 'update', '-qq');
        await sudo('apt-get', 'install', '-y', '-qq', ...SANDBOX_PACKAGES);
      });
      did.push(`installed ${SANDBOX_PACKAGES.join(', ')}`);
    } catch (e) {
      throw new SandboxUnavailableError(
        `the agents' sandbox (network: in .github/harness.yml) needs ${SANDBOX_PACKAGES.join(', ')} on the runner, and they could not be installed with sudo: ${firstLine(e)}; install them in a step before the worker, or use an Ubuntu runner`,
      );
    }
  }
  const restricted = (await readFile(APPARMOR_USERNS, 'utf8').catch(() => '0')).trim() === '1';
  if (restricted) {
    await sudo('sysctl', '-w', 'kernel.apparmor_restrict_unprivileged_userns=0').catch((e: unknown) => {
      throw new SandboxUnavailableError(
        `the agents' sandbox needs user namespaces, which AppArmor restricts on this runner (${APPARMOR_USERNS} is 1), and sudo could not lift it: ${firstLine(e)}`,
      );
    });
    did.push('allowed user namespaces (kernel.apparmor_restrict_unprivileged_userns=0) for bubblewrap');
  }
  return { did };
}

function firstLine(e: unknown): string {
  const err = e as { stderr?: string; message?: string };
  return (err.stderr?.trim() || err.message || String(e)).split('\n')[0]!;
}

/** The runner made ready, then the sandbox started for this job's one plan. */
export async function startRunnerSandbox(policy: SandboxPolicy, log: (line: string) => void): Promise<MachineSandboxes> {
  const { did } = await prepareRunner(policy.env);
  for (const line of did) log(`sandbox: ${line}`);
  return MachineSandboxes.start(policy);
}
