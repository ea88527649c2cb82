import { describe, expect, it } from 'vitest';
import { jvm } from '../../../../../app/engine/core/verify/telling/jvm.js';
import { failureSignature } from '../../../../../app/engine/knowledge/signals/signature.js';
import { expectDistinctSignatures, expectOneSignature, expectReturnsOnHostileInput, recognised, signature } from './tool-output.js';

/**
 * JUnit through surefire, Gradle, the console launcher and JUnitCore, and javac
 * (test/fixtures/tool-output/junit/, javac/ captured; maven/, gradle/ written from their source).
 */
describe('jvm', () => {
  it("the exception line under the failing test's name, not the tally nor Maven's closing goal", () => {
    expect(recognised('maven/surefire-3-assertion.txt')).toEqual({
      line: 'org.opentest4j.AssertionFailedError: expected: <201> but was: <500>',
      tool: 'maven',
    });
    expect(recognised('junit/jupiter-console.txt')).toEqual({ line: 'org.opentest4j.AssertionFailedError: expected: <201> but was: <500>', tool: 'junit' });
    expect(recognised('junit/junit4-core.txt')).toEqual({ line: 'java.lang.AssertionError: expected:<201> but was:<500>', tool: 'junit' });
    expect(recognised('gradle/test-assertion.txt')).toEqual({ line: 'org.opentest4j.AssertionFailedError at UserServiceTest.java:19', tool: 'gradle' });
    expect(recognised('gradle/test-npe-full.txt')?.line).toBe(
      'java.lang.NullPointerException: Cannot invoke "com.example.shop.Customer.getId()" because "customer" is null',
    );
    expect(recognised('maven/compile-cannot-find-symbol.txt')).toEqual({
      line: '/home/ci/shop/src/main/java/com/example/shop/OrderService.java:[18,16] cannot find symbol',
      tool: 'maven',
    });
    expect(recognised('javac/cannot-find-symbol.txt')).toEqual({ line: 'src/Broken.java:2: error: cannot find symbol', tool: 'javac' });
    // A JDBC error whose message starts on the next line: the driver's words.
    expect(recognised('maven/surefire-2-psql-error.txt')).toEqual({ line: 'ERROR: relation "invoices" does not exist', tool: 'postgres' });
  });

  it("an exception's message on the next line is joined to its class; Maven's goal counts only when it holds the cause", () => {
    expect(
      jvm.find([
        '[ERROR] savesInvoice(com.example.X)  Time elapsed: 0.2 s  <<< ERROR!',
        'com.example.StoreException: ',
        'store closed',
        '\tat com.example.X.savesInvoice(X.java:3)',
      ])?.line,
    ).toBe('com.example.StoreException: store closed');
    expect(
      jvm.find([
        '[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.2.5:test (default-test) on project shop: There are test failures.',
      ]),
    ).toBeUndefined();
    expect(jvm.find(['[ERROR] Failed to execute goal on project shop: Could not resolve dependencies for project com.example:shop:jar:1.0'])?.line).toBe(
      'Could not resolve dependencies for project com.example:shop:jar:1.0',
    );
  });

  it('the same failure in two plans has one signature; different failures have different ones', () => {
    expectOneSignature('maven/surefire-3-assertion.txt', 'junit/jupiter-console.txt');
    // Another plan's missing class, in another file and line: the same compile error.
    expect(failureSignature(jvm.find(['[ERROR] /w/billing/src/main/java/Invoice.java:[7,3] cannot find symbol'])?.line)).toBe(
      signature('maven/compile-cannot-find-symbol.txt'),
    );
    expectDistinctSignatures(
      'maven/surefire-3-assertion.txt',
      'junit/junit4-core.txt',
      'gradle/test-assertion.txt',
      'gradle/test-npe-full.txt',
      'javac/cannot-find-symbol.txt',
      'maven/surefire-2-psql-error.txt',
    );
  });

  it('returns on a 100 kB hostile line', () => {
    expectReturnsOnHostileInput(jvm);
  });
});
