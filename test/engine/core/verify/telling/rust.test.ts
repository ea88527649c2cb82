import { describe, expect, it } from 'vitest';
import { rust } from '../../../../../app/engine/core/verify/telling/rust.js';
import { failureSignature } from '../../../../../app/engine/knowledge/signals/signature.js';
import { expectDistinctSignatures, expectReturnsOnHostileInput, recognised, signature } from './tool-output.js';

/** cargo test and rustc, on their real output (test/fixtures/tool-output/cargo/, rustc/). */
describe('rust', () => {
  it("a panicking test's why (the line after `panicked at …:`), rustc's error, not cargo's closing lines", () => {
    expect(recognised('cargo/test-assert-eq.txt')).toEqual({ line: 'assertion `left == right` failed', tool: 'cargo test' });
    expect(recognised('cargo/test-unwrap-err.txt')?.line).toBe(
      'called `Result::unwrap()` on an `Err` value: Os { code: 2, kind: NotFound, message: "No such file or directory" }',
    );
    expect(recognised('rustc/cannot-find-function.txt')).toEqual({ line: 'error[E0425]: cannot find function `create_ordr` in this scope', tool: 'rustc' });
    expect(recognised('cargo/offline-no-matching-package.txt')).toEqual({ line: 'error: no matching package named `serde` found', tool: 'cargo' });
    expect(rust.find(["thread 'main' panicked at 'index out of bounds', src/main.rs:3:5"])?.line).toBe('index out of bounds');
    expect(rust.find(['error: could not compile `app` (lib) due to 1 previous error', 'error: test failed, to rerun pass `--lib`'])).toBeUndefined();
  });

  it('the same failure in two plans has one signature; different failures have different ones', () => {
    // Another plan's misspelt function, in another file: the same error.
    const other = rust.find(['   Compiling users v0.1.0', 'error[E0425]: cannot find function `create_usr` in this scope', ' --> src/users.rs:4:9']);
    expect(failureSignature(other?.line)).toBe(signature('rustc/cannot-find-function.txt'));
    expect(signature('rustc/cannot-find-function.txt')).toBe('error[E0425]: cannot find function `<name>` in this scope');
    expectDistinctSignatures(
      'cargo/test-assert-eq.txt',
      'cargo/test-unwrap-err.txt',
      'rustc/cannot-find-function.txt',
      'cargo/offline-no-matching-package.txt',
    );
  });

  it('returns on a 100 kB hostile line', () => {
    expectReturnsOnHostileInput(rust);
  });
});
