import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildReportServer, useBundledReportServer } from './helpers/report-server.js';
import { sharedDir } from './helpers/temp.js';

// The unit and integration projects' agents start the reporting MCP server bundled once per run (test/global-setup.ts),
// not the checkout's `harness mcp-report` through tsx: the same server, a second less of CPU per agent run.
const bundle = join(sharedDir(), 'report-server.mjs');
useBundledReportServer(existsSync(bundle) ? bundle : await buildReportServer(sharedDir()));
