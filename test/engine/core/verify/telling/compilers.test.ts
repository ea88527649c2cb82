import { describe, expect, it } from 'vitest';
import { compilers } from '../../../../../app/engine/core/verify/telling/compilers.js';
import { expectDistinctSignatures, expectOneSignature, expectReturnsOnHostileInput, recognised } from './tool-output.js';

/** tsc, gcc and javac, on their real output (test/fixtures/tool-output/tsc/, gcc/, javac/). */
describe('compilers', () => {
  it('the first diagnostic, not make’s or the linker’s closing line', () => {
    expect(recognised('tsc/orders.txt')).toEqual({ line: "src/orders.ts(2,9): error TS2322: Type 'string' is not assignable to type 'number'.", tool: 'tsc' });
    expect(recognised('tsc/users-pretty.txt')).toEqual({
      line: "src/users.ts:1:14 - error TS2322: Type 'string' is not assignable to type 'number'.",
      tool: 'tsc',
    });
    expect(recognised('gcc/make-undeclared.txt')).toEqual({ line: 'main.c:4:18: error: ‘count’ undeclared (first use in this function)', tool: 'gcc' });
    expect(compilers.find(['make: *** [Makefile:3: main] Error 1', 'collect2: error: ld returned 1 exit status'])).toBeUndefined();
  });

  it('the same failure in two plans (other files, lines, names) has one signature; different failures have different ones', () => {
    expectOneSignature('tsc/orders.txt', 'tsc/users.txt', 'tsc/users-pretty.txt');
    expectDistinctSignatures('tsc/orders.txt', 'gcc/make-undeclared.txt', 'gcc/expected-semicolon.txt', 'javac/cannot-find-symbol.txt');
  });

  it('returns on a 100 kB hostile line', () => {
    expectReturnsOnHostileInput(compilers);
  });
});
