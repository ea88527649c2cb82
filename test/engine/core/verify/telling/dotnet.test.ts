import { describe, expect, it } from 'vitest';
import { dotnet } from '../../../../../app/engine/core/verify/telling/dotnet.js';
import { failureSignature } from '../../../../../app/engine/knowledge/signals/signature.js';
import { expectDistinctSignatures, expectReturnsOnHostileInput, recognised, signature } from './tool-output.js';

/** dotnet test and MSBuild (test/fixtures/tool-output/dotnet/, written from VSTest's and MSBuild's source: no .NET SDK could be installed). */
describe('dotnet', () => {
  it("the line under the failing test's Error Message:, and MSBuild's error", () => {
    expect(recognised('dotnet/xunit-assert-equal.txt')).toEqual({ line: 'Assert.Equal() Failure: Values differ', tool: 'dotnet test' });
    expect(recognised('dotnet/npgsql-undefined-table.txt')).toEqual({
      line: 'Npgsql.PostgresException : 42P01: relation "invoices" does not exist',
      tool: 'postgres',
    });
    expect(recognised('dotnet/build-cs0103.txt')?.tool).toBe('dotnet build');
  });

  it('the same failure in two plans has one signature; different failures have different ones', () => {
    const other = dotnet.find([
      "/src/Billing/InvoiceService.cs(7,3): error CS0103: The name 'customerRepository' does not exist in the current context [/src/Billing/Billing.csproj]",
    ]);
    expect(failureSignature(other?.line)).toBe(signature('dotnet/build-cs0103.txt'));
    expectDistinctSignatures('dotnet/xunit-assert-equal.txt', 'dotnet/npgsql-undefined-table.txt', 'dotnet/build-cs0103.txt');
  });

  it('returns on a 100 kB hostile line', () => {
    expectReturnsOnHostileInput(dotnet);
  });
});
