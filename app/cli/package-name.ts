/**
 * The name harness is published under on npm. The command stays `harness` (package.json's
 * bin); the package cannot be called that, because `harness` on the registry is someone
 * else's (a test organizer), which npx given the bare name would download and run.
 */
export const PACKAGE_NAME = 'spec-harness';

/** How a person starts the MCP server when harness is not on PATH: `npx` fetches this package. */
export const NPX_MCP = `npx -y ${PACKAGE_NAME} mcp`;
