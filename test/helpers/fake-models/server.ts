import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

/** A request as a fake model API gets it: its body read whole. */
export interface Received {
  req: IncomingMessage;
  /** The path without its query. */
  path: string;
  /** The body as sent. */
  text: string;
}

export interface ModelServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** What reached it as a proxy (HTTPS_PROXY, HTTP_PROXY): traffic for anywhere but 127.0.0.1, refused with 403. */
  escaped: string[];
  close(): Promise<void>;
}

/**
 * The HTTP side every fake model API shares (test/helpers/fake-models/*): a server on 127.0.0.1 (a
 * free port) that reads each request's body whole before `handle` answers it, and refuses, with
 * 403, anything asked of it as a proxy (an absolute URL, or CONNECT), keeping it in `escaped` for the
 * test to assert there was none. `close` ends open connections (a stream left open) too.
 */
export async function modelServer(handle: (received: Received, res: ServerResponse) => void): Promise<ModelServer> {
  const escaped: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (/^https?:\/\//.test(req.url ?? '')) {
        escaped.push(`${req.method} ${req.url}`);
        res.writeHead(403).end();
        return;
      }
      handle({ req, path: (req.url ?? '/').split('?')[0]!, text: Buffer.concat(chunks).toString('utf8') }, res);
    });
  });
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    escaped.push(`CONNECT ${req.url}`);
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    escaped,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A JSON body, or `fallback` when there is none or it is not JSON. */
export function jsonOf<T>(text: string, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}
