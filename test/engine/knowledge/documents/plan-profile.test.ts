import { describe, expect, it } from 'vitest';
import { commandFeatures, importsOf, planProfile, profileFeatures, profileOf } from '../../../../app/engine/knowledge/documents/plan-profile.js';

/** What a plan shows of the causes it may meet: its checks' commands, its files' imports, its words. */

describe("the commands a plan's checks run", () => {
  it('keeps the program, its subcommand and each flag, and drops paths, patterns and quoted data', () => {
    expect(commandFeatures('go test -race -count=1 ./internal/orders/...')).toEqual(['go test', 'go test -race', 'go test -count=1']);
    expect(commandFeatures('go test ./...')).toEqual(['go test']);
    expect(commandFeatures('pytest -m integration tests/test_orders.py')).toEqual(['pytest', 'pytest -m integration']);
    expect(commandFeatures('npm run test:db -- --runInBand')).toEqual(['npm run test:db']);
    expect(commandFeatures('npm test')).toEqual(['npm test']);
    expect(commandFeatures('cargo test --workspace -p 1')).toEqual(['cargo test', 'cargo test --workspace', 'cargo test -p 1']);
  });

  it('looks through wrappers and runners to what they run', () => {
    expect(commandFeatures('npx vitest run --pool=threads src/a.test.ts')).toEqual(['vitest run', 'vitest run --pool=threads']);
    expect(commandFeatures('poetry run pytest -x')).toEqual(['pytest', 'pytest -x']);
    expect(commandFeatures('python3 -m pytest -n 4')).toEqual(['pytest', 'pytest -n 4']);
    expect(commandFeatures('TZ=UTC CGO_ENABLED=1 go test ./...')).toEqual(['go test', 'go test TZ=', 'go test CGO_ENABLED=']);
    expect(commandFeatures('cd api && bundle exec rspec spec/models')).toEqual(['rspec']);
    // A word after a flag is taken for its value: a command line does not say which flags take none.
    expect(commandFeatures('docker compose up -d db && go test ./...')).toEqual(['docker compose', 'docker compose -d db', 'go test']);
  });

  it('reads a hostile line in bounded time and finds nothing in plumbing', () => {
    expect(commandFeatures(`echo ${'a'.repeat(100_000)}`)).toEqual([]);
    expect(commandFeatures(`${'-'.repeat(50_000)} ${'"'.repeat(50_000)}`).length).toBeLessThanOrEqual(2);
    expect(commandFeatures('cat x | grep y; true')).toEqual([]);
  });
});

describe('the modules a file imports', () => {
  it("Go: single imports and blocks, with the module's parents from owner/repository down", () => {
    const text = 'package orders\n\nimport (\n\t"context"\n\tpgx "github.com/jackc/pgx/v5/pgxpool"\n\t"example.com/svc/internal/db"\n)\n\nimport "testing"\n';
    expect(importsOf('internal/orders/store.go', text)).toEqual([
      'testing',
      'context',
      'github.com/jackc/pgx',
      'github.com/jackc/pgx/v5',
      'github.com/jackc/pgx/v5/pgxpool',
      'example.com/svc/internal',
      'example.com/svc/internal/db',
    ]);
  });

  it('Python, JavaScript and TypeScript, Rust, Java, C#, Ruby', () => {
    expect(importsOf('etl/x.py', 'import os, sqlalchemy.orm\nfrom psycopg2 import errors\nfrom . import local\n')).toEqual([
      'os',
      'sqlalchemy',
      'sqlalchemy.orm',
      'psycopg2',
    ]);
    expect(importsOf('src/store/a.ts', "import { Pool } from 'pg';\nimport type { X } from '@prisma/client';\nconst y = require('./db/pool.js');\n")).toEqual([
      'pg',
      '@prisma/client',
      'src/store/db/pool',
    ]);
    expect(importsOf('src/lib.rs', 'use sqlx::postgres::PgPool;\nuse crate::db;\n')).toEqual(['sqlx', 'sqlx::postgres', 'sqlx::postgres::PgPool']);
    expect(
      importsOf('A.java', 'import org.postgresql.Driver;\nimport static org.junit.Assert.assertEquals;\nimport com.zaxxer.hikari.HikariConfig;\n'),
    ).toEqual(['org.postgresql', 'org.junit', 'com.zaxxer', 'com.zaxxer.hikari']);
    expect(importsOf('A.cs', 'using Npgsql;\nusing System.Data;\n')).toEqual(['Npgsql', 'System', 'System.Data']);
    expect(importsOf('spec/a_spec.rb', "require 'pg'\nrequire_relative '../lib/db'\n")).toEqual(['pg', 'lib/db']);
    expect(importsOf('README.md', "import x from 'y'")).toEqual([]);
  });
});

describe("a plan's profile", () => {
  it("has its checks' commands, the imports given and its own words, not the words of its code blocks", () => {
    const profile = planProfile(
      {
        title: 'Orders repository on Postgres',
        body: 'Persist orders.\n\n```sh\ngo generate ./...\n```\n<!-- a comment about caching -->',
        commands: ['go test -race ./internal/orders/...'],
      },
      ['github.com/jackc/pgx/v5'],
    );
    expect(profile.commands).toEqual(['go test', 'go test -race']);
    expect(profile.imports).toEqual(['github.com/jackc/pgx/v5']);
    expect(profile.words).toEqual(expect.arrayContaining(['order', 'repository', 'postgr', 'persist']));
    expect(profile.words).not.toContain('generat');
    expect(profile.words).not.toContain('cach');
    expect([...profileFeatures(profile)]).toEqual(expect.arrayContaining(['runs:go test -race', 'imports:github.com/jackc/pgx/v5', 'says:postgr']));
  });

  it('reads back what a signal holds, and nothing from what is not a profile', () => {
    expect(profileOf({ commands: ['go test'], imports: [], words: ['order'] })).toEqual({ commands: ['go test'], imports: [], words: ['order'] });
    expect(profileOf({ commands: 'go test', imports: [1, 2] })).toBeUndefined();
    expect(profileOf(null)).toBeUndefined();
    expect(profileOf(['x'])).toBeUndefined();
  });
});
