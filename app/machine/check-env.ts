/**
 * What a check inherits from the process that runs it: everything but credentials. A check
 * is a command a spec's author wrote, and its output goes into SUMMARY.md, VERIFICATION.md
 * and check runs; a token in its environment is one `env` or `set -x` away from all of them.
 * A plan that needs a credential in a check names it in the check's own `env:`.
 */
const SECRET_NAME = /(TOKEN|SECRET|PASSWORD|PASSWD|PRIVATE_KEY|API_KEY|ACCESS_KEY|CREDENTIAL|_PAT$|^GH_|^GITHUB_TOKEN$|^NPM_AUTH|^INPUT_)/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

export function checkEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) if (!isSecretName(key)) out[key] = value;
  return out;
}
