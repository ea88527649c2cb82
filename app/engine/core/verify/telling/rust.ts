import { prepare, unframed, type Recogniser } from './recogniser.js';

/**
 * `cargo test` and rustc. A panicking test says where (`thread 'tests::adds' panicked at
 * src/lib.rs:9:9:`) and, on the next line, why (`assertion `left == right` failed`): the why is
 * the cause; older Rust put it in quotes on the same line (`panicked at 'msg', src/lib.rs:9:9`).
 * A compile error is rustc's `error[E0425]: cannot find value `y` in this scope`, not cargo's
 * closing `error: could not compile …` nor `error: test failed, to rerun pass `--lib``.
 */

const PANICKED_AT = /^thread '[^']*'(?: \(\d+\))? panicked at (?:'(.*)', \S+|\S+:\d+:\d+:)$/;
const RUSTC = /^error(?:\[E\d{4}\])?: (\S.*)$/;
/** cargo's and rustc's closing lines: consequences of an error above them. */
const CONSEQUENCE = /^(?:could not compile|test failed, to rerun|aborting due to|build failed|Recipe `)/;

export const rust: Recogniser = {
  name: 'rust',
  find(output) {
    const lines = prepare(output);
    for (let at = 0; at < lines.length; at++) {
      const line = unframed(lines[at]!);
      const panic = PANICKED_AT.exec(line);
      if (panic !== null) {
        if (panic[1] !== undefined) return { at, line: panic[1], tool: 'cargo test' };
        const why = lines[at + 1]?.trim();
        if (why !== undefined && why !== '') return { at, line: why, tool: 'cargo test' };
        continue;
      }
      // rustc's diagnostic: a code, or its location (` --> src/lib.rs:9:20`) on the next line; a bare `error: …` is any tool's.
      const error = RUSTC.exec(line);
      if (error === null || CONSEQUENCE.test(error[1]!)) continue;
      if (line.startsWith('error[') || /^\s*--> \S/.test(lines[at + 1] ?? '')) return { at, line, tool: 'rustc' };
    }
    return undefined;
  },
};
