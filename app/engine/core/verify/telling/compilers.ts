import { prepare, unframed, type Recogniser } from './recogniser.js';

/**
 * Compilers: tsc (`src/a.ts(3,5): error TS2322: …`, and with --pretty `src/a.ts:3:5 - error
 * TS2322: …`), gcc and clang (`main.c:4:18: error: ‘count’ undeclared …`, the linker's
 * `undefined reference to …`), javac (`Order.java:3: error: cannot find symbol`). The first
 * diagnostic is the cause; make's `*** [Makefile:3: main] Error 1` and `collect2: error: ld
 * returned 1 exit status` only say that it failed.
 */

const TSC = /^\S.*?(?:\(\d+,\d+\): | ?:\d+:\d+ - )error TS\d+\b/;
const GCC = /^\S.*?:\d+:\d+: (?:fatal )?error: \S/;
const LINKER = /^\S.*?: undefined reference to [`'‘]/;
const JAVAC = /^\S.*?\.java:\d+: error: \S/;

const TOOLS: readonly [RegExp, string][] = [
  [TSC, 'tsc'],
  [JAVAC, 'javac'],
  [GCC, 'gcc'],
  [LINKER, 'ld'],
];

export const compilers: Recogniser = {
  name: 'compilers',
  find(output) {
    const lines = prepare(output);
    for (let at = 0; at < lines.length; at++) {
      const line = unframed(lines[at]!);
      const tool = TOOLS.find(([re]) => re.test(line))?.[1];
      if (tool !== undefined) return { at, line, tool };
    }
    return undefined;
  },
};
