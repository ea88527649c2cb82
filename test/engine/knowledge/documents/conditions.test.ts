import { describe, expect, it } from 'vitest';
import {
  bestMet,
  chanceOf,
  countIn,
  formatCondition,
  learnConditions,
  learnFrom,
  meets,
  namedWords,
  parseCondition,
  parseConditionList,
} from '../../../../app/engine/knowledge/documents/conditions.js';
import { profileFeatures, type PlanProfile } from '../../../../app/engine/knowledge/documents/plan-profile.js';

/** When knowledge applies: what the plans that met a failure had that the others had not. */

const plan = (commands: string[], imports: string[], words: string[]): PlanProfile => ({ commands, imports, words });

describe('learning when a failure applies', () => {
  // Four plans met the failure: all ran `go test -race`; they were in three folders, as were the others.
  const met = [
    plan(['go test', 'go test -race'], [], ['order', 'handler']),
    plan(['go test', 'go test -race'], [], ['user', 'handler']),
    plan(['go test', 'go test -race'], [], ['billing', 'invoic']),
    plan(['go test', 'go test -race'], [], ['order', 'export']),
  ];
  const others = [
    plan(['go test'], [], ['order', 'handler']),
    plan(['go test'], [], ['user', 'handler']),
    plan(['go test'], [], ['billing', 'report']),
    plan(['go test'], [], ['order', 'list']),
    plan(['go test'], [], ['user', 'profil']),
    plan(['go test'], [], ['handler', 'health']),
  ];

  it('finds the command the plans that met it ran and the others did not, with the counts, and nothing they all share', () => {
    const { conditions, uncovered } = learnConditions(met, others);
    expect(conditions.map(formatCondition)).toEqual(['runs "go test -race" (4 of 4 plans that met it; 0 of 6 others)']);
    expect(uncovered).toBe(0);
    expect(chanceOf(conditions[0]!)).toBeCloseTo(0.8);
  });

  it('does not take a word of the folders they share with the others for a cause', () => {
    // "order" and "handler" are in two of the four that met it, and in as many that did not.
    const { conditions } = learnConditions(met, others);
    expect(conditions.flatMap((c) => c.features.map((f) => f.value))).not.toContain('order');
    expect(conditions.flatMap((c) => c.features.map((f) => f.value))).not.toContain('handler');
  });

  it('takes two features together when neither alone tells, and a feature alone before a pair that fits the plans seen more closely', () => {
    // `pg` and `zod` are each used by four plans that did not meet it; together, by none of them.
    const both = [plan([], ['pg', 'zod'], ['a']), plan([], ['pg', 'zod'], ['b']), plan([], ['pg', 'zod'], ['c'])];
    const apart = [
      ...Array.from({ length: 4 }, () => plan([], ['pg'], ['d'])),
      ...Array.from({ length: 4 }, () => plan([], ['zod'], ['e'])),
      ...Array.from({ length: 4 }, () => plan([], [], ['f'])),
    ];
    expect(learnConditions(both, apart).conditions.map(formatCondition)).toEqual(['imports "pg" and imports "zod" (3 of 3 plans that met it; 0 of 12 others)']);
    // A module: alone it makes the failure two times in five likely, enough for what a plan shows deliberately; a closer pair is not taken.
    const pgx = 'github.com/jackc/pgx/v5';
    const met3 = [plan(['go test'], [pgx], ['migrat', 'order']), plan(['go test'], [pgx], ['migrat', 'user']), plan(['go test'], [pgx], ['migrat', 'invoic'])];
    const others3 = [
      plan(['go test'], [pgx], ['order', 'list']),
      plan(['go test'], [pgx], ['user']),
      plan(['go test'], [], ['migrat', 'doc']),
      plan(['go test'], [], ['migrat', 'guide']),
      ...Array.from({ length: 6 }, () => plan(['go test'], [], ['health'])),
    ];
    expect(learnConditions(met3, others3).conditions.map(formatCondition)).toEqual([`imports "${pgx}" (3 of 3 plans that met it; 2 of 10 others)`]);
    // On five others, two of them with the module, three of three is what chance gives one time in six: no condition.
    expect(learnConditions(met3, others3.slice(0, 5)).conditions.map(formatCondition)).not.toContain(
      `imports "${pgx}" (3 of 3 plans that met it; 2 of 5 others)`,
    );
  });

  it('takes a module the error names from one plan that met it, where any other feature needs two', () => {
    // Two plans met "offset-naive … datetimes": one read the dates module (it imports datetime), one the models (django).
    const met2 = [
      plan(['pytest'], ['datetime', 'dateutil', 'tally/core/dates'], ['export', 'refund']),
      plan(['pytest'], ['django', 'django.db', 'tally/core/models'], ['export', 'notic']),
    ];
    const rest = Array.from({ length: 12 }, (_, i) => plan(['pytest'], [i % 2 ? 'django' : 'tally/core/money', 'tally/settings/base'], ['export', `x${i}`]));
    const learn = (signatures: string[], others = rest) =>
      learnFrom(met2.map(profileFeatures), countIn(others.map(profileFeatures)), namedWords(signatures)).conditions.map(formatCondition);
    const naive = ["TypeError: can't compare offset-naive and offset-aware datetimes"];
    expect(learn(naive)).toEqual(['imports "datetime" (1 of 2 plans that met it; 0 of 12 others)']);
    // The same plans, an error that names no module they import: one plan's modules are its incidentals.
    expect(learn(['KeyError: <name>'])).toEqual([]);
    // A plan that did not meet it imports datetime too: as likely a coincidence as not.
    expect(learn(naive, [...rest, plan(['pytest'], ['datetime'], ['import'])])).toEqual([]);
    // A name of two letters (`pq` in "pq: relation … does not exist") is in too many words by chance.
    expect(
      learnFrom(
        [plan(['go test'], ['github.com/lib/pq'], ['a'])].map(profileFeatures),
        countIn(rest.map(profileFeatures)),
        namedWords(['pq: relation "<name>" does not exist']),
      ).conditions,
    ).toEqual([]);
    // A mask is not a name: `<name>` never names a module called name.
    expect(namedWords(['undefined: mocks.<name>'])).toEqual(new Set(['undefin', 'mock']));
  });

  it("takes a word only from three plans that met it: two plans share a verb of the project's by chance", () => {
    const rest = Array.from({ length: 7 }, (_, i) => plan([], [], [`export${i}`, 'archiv']));
    expect(learnConditions([plan([], [], ['list', 'payout']), plan([], [], ['list', 'price'])], rest).conditions).toEqual([]);
    const three = [plan([], [], ['list', 'payout']), plan([], [], ['list', 'price']), plan([], [], ['list', 'quot'])];
    expect(learnConditions(three, rest).conditions.map(formatCondition)).toEqual(['says "list" (3 of 3 plans that met it; 0 of 7 others)']);
  });

  it('takes a module below even odds only from three plans that met it: two plans sharing a common read is a coincidence', () => {
    const rest = [plan([], ['decimal'], ['a']), plan([], ['decimal'], ['b']), ...Array.from({ length: 13 }, () => plan([], ['structlog'], ['c']))];
    expect(learnConditions([plan([], ['decimal'], ['x']), plan([], ['decimal'], ['y'])], rest).conditions).toEqual([]);
    const three = [plan([], ['decimal'], ['x']), plan([], ['decimal'], ['y']), plan([], ['decimal'], ['z'])];
    expect(learnConditions(three, [...rest, plan([], ['decimal'], ['d'])]).conditions.map(formatCondition)).toEqual([
      'imports "decimal" (3 of 3 plans that met it; 3 of 16 others)',
    ]);
  });

  it('takes nothing chance would give as often as not: two of two plans read the settings module, and one of six others', () => {
    const met2 = [plan([], ['tally/settings/base'], ['x']), plan([], ['tally/settings/base'], ['y'])];
    const six = [plan([], ['tally/settings/base'], ['a']), ...Array.from({ length: 5 }, () => plan([], ['tally/api/views'], ['b']))];
    expect(learnConditions(met2, six).conditions).toEqual([]);
    // None of the six: one chance in twenty-eight, a cause.
    expect(learnConditions(met2, six.slice(1).concat(plan([], [], ['c']))).conditions.map(formatCondition)).toEqual([
      'imports "tally/settings/base" (2 of 2 plans that met it; 0 of 6 others)',
    ]);
  });

  it('takes no pair of two features most plans have, though by chance none of a few others had both', () => {
    // The config package most plans read, and a word most plans say: two of the three that met it had both, none of sixteen others.
    const env = 'github.com/kelseyhightower/envconfig';
    const met3 = [plan([], [env], ['return', 'refund']), plan([], [env], ['return', 'payout']), plan([], ['database/sql'], ['dispute'])];
    const rest = [...Array.from({ length: 8 }, () => plan([], [env], ['list'])), ...Array.from({ length: 8 }, () => plan([], [], ['return']))];
    expect(learnConditions(met3, rest).conditions).toEqual([]);
  });

  it("takes a feature alone over a pair that is hardly surer: the pair's other half is incidental", () => {
    const pay = 'src/lib/payments';
    const met3 = [plan([], [pay], ['rout', 'cart']), plan([], [pay], ['rout', 'label']), plan([], [pay], ['rout', 'fee']), plan([], [pay], ['rout'])];
    const others3 = [plan([], [pay], ['job']), plan([], [], ['rout']), plan([], [], ['rout']), ...Array.from({ length: 5 }, () => plan([], [], ['health']))];
    expect(learnConditions(met3, others3).conditions.map(formatCondition)).toEqual([`imports "${pay}" (4 of 4 plans that met it; 1 of 8 others)`]);
  });

  it('takes no command every plan runs, however likely its counts look on a few plans', () => {
    const met4 = [plan(['npm test'], [], ['store']), plan(['npm test'], [], ['tag']), plan(['npm test'], [], ['user'])];
    const others4 = [plan(['npm test'], [], ['a']), plan(['npm test'], [], ['b']), plan(['npm test'], [], ['c'])];
    expect(learnConditions(met4, others4).conditions).toEqual([]);
    // A module the failures' plans read and two in five others do is a condition at two chances in five: a plan shows what it uses deliberately.
    const pg = [plan([], ['pg'], ['x']), plan([], ['pg'], ['y']), plan([], ['pg'], ['z'])];
    const rest = [plan([], ['pg'], ['a']), plan([], ['pg'], ['b']), ...Array.from({ length: 8 }, () => plan([], [], ['c']))];
    expect(learnConditions(pg, rest).conditions.map(formatCondition)).toEqual(['imports "pg" (3 of 3 plans that met it; 2 of 10 others)']);
  });

  it('learns nothing without others to compare with: any word the plans share would pass', () => {
    expect(learnConditions(met, others.slice(0, 2)).conditions).toEqual([]);
    expect(learnConditions(met, []).uncovered).toBe(4);
  });

  it("needs two plans that met it: one plan's incidentals are no evidence", () => {
    expect(learnConditions([met[0]!], others).conditions).toEqual([]);
  });
});

describe('a condition as a person reads and writes it', () => {
  it('reads back what it wrote, and what a person writes without counts', () => {
    const text = 'imports "github.com/jackc/pgx" and says "migration" (2 of 3 plans that met it; 1 of 21 others)';
    expect(formatCondition(parseCondition(text)!)).toBe(text);
    expect(parseCondition('runs "go test -race"')).toEqual({ features: [{ kind: 'runs', value: 'go test -race' }] });
    expect(chanceOf(parseCondition('runs "go test -race"')!)).toBe(1);
    for (const bad of ['go test -race', 'runs go test', 'runs "x" (5 of 3 plans that met it; 0 of 1 others)', 'runs "x" and', 'whatever "x"'])
      expect(parseCondition(bad)).toBeUndefined();
  });

  it("reads a skill's one-line list, and names what it cannot read", () => {
    const { conditions, unread } = parseConditionList('runs "go test -race" (3 of 3 plans that met it; 0 of 9 others); says "postgres"; nonsense');
    expect(conditions).toHaveLength(2);
    expect(unread).toEqual(['nonsense']);
    expect(parseConditionList('runs "a; b"; whatever "c"')).toEqual({
      conditions: [{ features: [{ kind: 'runs', value: 'a; b' }] }],
      unread: ['whatever "c"'],
    });
  });

  it('is met by a plan with every feature, a word in any of its forms', () => {
    const features = profileFeatures(plan(['go test', 'go test -race'], ['github.com/jackc/pgx'], ['postgr', 'migration']));
    expect(meets(parseCondition('runs "go test -race" and says "Postgres"')!, features)).toBe(true);
    expect(meets(parseCondition('says "migrations"')!, features)).toBe(true);
    expect(meets(parseCondition('runs "go test -race" and imports "pg"')!, features)).toBe(false);
    // Met, but not likely enough: 1 of 1 against 3 others is 1 in 5.
    expect(bestMet([parseCondition('runs "go test" (1 of 1 plans that met it; 3 of 9 others)')!], features)).toBeUndefined();
    expect(bestMet([parseCondition('runs "go test -race" (3 of 3 plans that met it; 0 of 9 others)')!], features)?.chance).toBe(0.75);
  });
});
