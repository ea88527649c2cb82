import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A private repository's Git host on 127.0.0.1: Git's smart HTTP protocol served by
 * `git http-backend` (the CGI program Git ships), behind the check GitHub makes: every request,
 * reads included, must carry `Authorization: basic base64(x-access-token:<token>)`, or it is
 * answered 401 as GitHub answers it, and git without credentials fails with "could not read
 * Username". Each request is recorded with whether it was authorised.
 */
export interface PrivateGitHost {
  /** http://127.0.0.1:<port>: what $GITHUB_SERVER_URL is for this host. */
  url: string;
  /** The clone URL of a bare repository under `root`: `<url>/<owner>/<repo>.git`. */
  repoUrl: (owner: string, repo: string) => string;
  requests: { method: string; path: string; authorised: boolean; service: string | undefined }[];
  close: () => Promise<void>;
}

/**
 * Serve the bare repositories under `root` (`<root>/<owner>/<repo>.git`) to holders of `token`
 * alone.
 */
export async function privateGitHost(root: string, token: string): Promise<PrivateGitHost> {
  const expected = `basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
  const requests: PrivateGitHost['requests'] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const authorised = (req.headers.authorization ?? '').toLowerCase() === expected.toLowerCase();
    const service =
      url.searchParams.get('service') ??
      (url.pathname.endsWith('/git-receive-pack') ? 'git-receive-pack' : url.pathname.endsWith('/git-upload-pack') ? 'git-upload-pack' : undefined);
    requests.push({ method: req.method ?? 'GET', path: url.pathname, authorised, service });
    if (!authorised) {
      req.resume();
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="GitHub"', 'Content-Type': 'text/plain' });
      res.end('Invalid username or token. Password authentication is not supported for Git operations.\n');
      return;
    }
    backend(root, req, res, url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    repoUrl: (owner, repo) => `${base}/${owner}/${repo}.git`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One request through `git http-backend`, as a web server runs a CGI program. */
function backend(root: string, req: IncomingMessage, res: ServerResponse, url: URL): void {
  const child = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method ?? 'GET',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      // http-backend serves receive-pack only to an authenticated user.
      REMOTE_USER: 'x-access-token',
      REMOTE_ADDR: '127.0.0.1',
      ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
      ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
    },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  req.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let started = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (started) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    started = true;
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
      else headers[name] = value;
    }
    res.writeHead(status, headers);
    res.write(head.subarray(end + 4));
  });
  child.on('close', () => {
    if (!started) res.writeHead(500).end();
    else res.end();
  });
}
