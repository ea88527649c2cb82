import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An OTLP/HTTP collector on 127.0.0.1, for the trace tests: what it was sent, as OTLP's JSON encoding words it. */

export interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: OtlpValue }[];
  events?: { name: string; attributes?: { key: string; value: OtlpValue }[] }[];
}
export interface OtlpBody {
  resourceSpans: { resource: { attributes: { key: string; value: OtlpValue }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

export interface Collector {
  url: string;
  /** Every POST to /v1/traces, its body as JSON. */
  bodies: OtlpBody[];
  close(): Promise<void>;
}

const open = new Set<Collector>();

/** A collector answering 200 to every export. */
export async function collector(): Promise<Collector> {
  const bodies: OtlpBody[] = [];
  const read = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  const server = createServer((req, res) => {
    void read(req).then((text) => {
      if (req.method === 'POST' && req.url === '/v1/traces') bodies.push(JSON.parse(text) as OtlpBody);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const made: Collector = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: () => {
      open.delete(made);
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  open.add(made);
  return made;
}

/** Every collector still open, closed (afterEach). */
export async function closeCollectors(): Promise<void> {
  await Promise.all([...open].map((c) => c.close()));
}

const value = (v: OtlpValue | undefined) => v?.stringValue ?? (v?.intValue === undefined ? (v?.boolValue ?? v?.doubleValue) : Number(v.intValue));

/** A span's (or a resource's) attributes as a plain object. */
export const attrs = (span: { attributes?: { key: string; value: OtlpValue }[] }) =>
  Object.fromEntries((span.attributes ?? []).map((a) => [a.key, value(a.value)]));

/** Every span the collector was sent. */
export const spansOf = (c: Collector) => c.bodies.flatMap((b) => b.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
