import { describe, expect, it } from 'vitest';
import { ruby } from '../../../../../app/engine/core/verify/telling/ruby.js';
import { expectDistinctSignatures, expectOneSignature, expectReturnsOnHostileInput, recognised } from './tool-output.js';

/** RSpec, on its real output (test/fixtures/tool-output/rspec/). */
describe('ruby', () => {
  it("what went wrong under Failure/Error:, not the spec's code", () => {
    expect(recognised('rspec/eq-order.txt')).toEqual({ line: 'expected: 10 got: 0 (compared using ==)', tool: 'rspec' });
    expect(recognised('rspec/name-error.txt')).toEqual({ line: 'NameError: uninitialized constant User', tool: 'rspec' });
    expect(ruby.find(["app.rb:3:in 'total': undefined method 'sum' for nil (NoMethodError)"])?.tool).toBe('ruby');
  });

  it('the same failure in two plans has one signature; different failures have different ones', () => {
    expectOneSignature('rspec/eq-order.txt', 'rspec/eq-user.txt');
    expectDistinctSignatures('rspec/eq-order.txt', 'rspec/name-error.txt');
  });

  it('returns on a 100 kB hostile line', () => {
    expectReturnsOnHostileInput(ruby);
  });
});
