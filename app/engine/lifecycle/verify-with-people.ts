import type { Clock } from '../core/clock.js';
import { HarnessError } from '../core/error.js';
import type { Checkpoint } from '../core/protocol/messages.js';
import type { HumanAnswer, LevelResult, VerificationReport, VerifyOptions } from '../core/verify/levels.js';
import type { VerifyPorts } from '../core/verify/ports.js';
import { humanAnswer, humanCheckpointId, humanCheckQuestion, type GivenAnswer, type HumanCheckRef } from './answers.js';
import type { Answers, OpenVerifyPorts, Progress } from './ports.js';

/** How many times one verification may come back to a person before it stands as it is. */
const MAX_HUMAN_ROUNDS = 5;

export class UnknownHumanCheckError extends HarnessError {}

export interface PeopleVerification {
  /** The level's checks, run against fresh ports with the answers so far. */
  run(ports: VerifyPorts, options: VerifyOptions): Promise<VerificationReport>;
  /** The level's human checks. */
  humanChecks: readonly HumanCheckRef[];
  /** When the work under verification was committed: answers given before it are of other work. */
  since?: () => Promise<Date>;
  /** The stage's title, for a log that folds its lines. */
  title: string;
}

export interface PeopleOutcome {
  report: VerificationReport;
  /** The human check nobody could answer yet, where nobody can wait. */
  waiting?: Checkpoint;
  verifyMs: number;
}

type Ports = { verifyPorts: OpenVerifyPorts; answers: Answers; progress: Progress; clock: Clock };

/**
 * Run a level's checks; when human checks wait, ask a person through the answers port and run
 * them again with the answers. Answers given before (on the plan issue) count without asking,
 * unless they are older than the work. A question nobody can answer yet ends it, waiting.
 */
export async function verifyWithPeople(level: PeopleVerification, ports: Ports): Promise<PeopleOutcome> {
  const { answers, progress, clock } = ports;
  const known = await standingAnswers(level, answers);
  let verifyMs = 0;
  const once = async (): Promise<VerificationReport> => {
    const started = clock.monotonic();
    const open = ports.verifyPorts();
    try {
      return await level.run(open, {
        answers: known,
        onStart: (check, plan) => void progress.event({ kind: 'check-started', check, ...(plan === undefined ? {} : { plan }) }),
        onResult: (result) => void progress.event({ kind: 'check', result }),
      });
    } finally {
      await open.close();
      verifyMs += clock.monotonic() - started;
    }
  };
  return progress.stage(level.title, async () => {
    for (let round = 0; ; round++) {
      const report = await once();
      if (report.status !== 'human' || round >= MAX_HUMAN_ROUNDS) return { report, verifyMs };
      for (const result of report.results.filter((r) => r.status === 'human')) {
        const key = keyOf(result);
        if (known[key]) continue;
        const question = humanCheckQuestion(refOf(level, key));
        const given = await answers.ask(question, 'verification');
        if (!given) return { report, waiting: question, verifyMs };
        known[key] = humanAnswer(given);
      }
    }
  });
}

function keyOf(result: LevelResult): string {
  return result.plan === undefined ? result.id : `${result.plan}/${result.id}`;
}

function refOf(level: PeopleVerification, key: string): HumanCheckRef {
  const ref = level.humanChecks.find((h) => h.key === key);
  if (!ref) throw new UnknownHumanCheckError(`check ${key} waits for a person but is no human check of this level`);
  return ref;
}

/** Answers given before the run that still stand; `since` is asked for only when an answer says when it was given. */
async function standingAnswers(level: PeopleVerification, answers: Answers): Promise<Record<string, HumanAnswer>> {
  const known: Record<string, HumanAnswer> = {};
  let since: Date | undefined;
  for (const ref of level.humanChecks) {
    const given: GivenAnswer | undefined = answers.given(humanCheckpointId(ref.key));
    if (!given) continue;
    if (given.at !== undefined && level.since) {
      since ??= await level.since();
      if (Date.parse(given.at) < since.getTime()) continue;
    }
    known[ref.key] = humanAnswer(given);
  }
  return known;
}
