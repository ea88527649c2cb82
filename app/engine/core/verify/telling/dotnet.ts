import { nextSaying, prepare, unframed, type Recogniser } from './recogniser.js';

/**
 * `dotnet test` (VSTest's console logger) and MSBuild. A failing test is `  Failed
 * Shop.Tests.OrderTests.CreatesOrder [4 ms]`, then `  Error Message:` and, on the next line,
 * the cause (`Assert.Equal() Failure: Values differ`, `Npgsql.PostgresException : 42P01:
 * relation "invoices" does not exist`). A build error is MSBuild's `…/OrderService.cs(18,20):
 * error CS0103: The name 'x' does not exist in the current context [….csproj]`.
 */

const FAILED_TEST = /^Failed \S+ \[[^\]]*\]$/;
const ERROR_MESSAGE = /^Error Message:$/;
const MSBUILD = /^\S.*\.(?:cs|fs|vb|xaml|razor|cshtml|[a-z]*proj|props|targets)\(\d+,\d+\): (?:fatal )?error [A-Z]+\d+: \S/;

export const dotnet: Recogniser = {
  name: 'dotnet',
  find(output) {
    const lines = prepare(output);
    for (let at = 0; at < lines.length; at++) {
      const line = lines[at]!.trim();
      if (FAILED_TEST.test(line)) {
        const banner = nextSaying(lines, at + 1, 2);
        if (banner === undefined || !ERROR_MESSAGE.test(lines[banner]!.trim())) continue;
        const message = nextSaying(lines, banner + 1, 2);
        if (message !== undefined) return { at: message, line: unframed(lines[message]!), tool: 'dotnet test' };
      }
      if (MSBUILD.test(line)) return { at, line, tool: 'dotnet build' };
    }
    return undefined;
  },
};
