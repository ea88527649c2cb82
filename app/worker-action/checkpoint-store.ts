import { lstat, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { TRAILER_PLAN, TRAILER_SPEC, trailerValue } from '../engine/core/agents/commit-message.js';
import { CheckpointSchema, type Checkpoint } from '../engine/core/protocol/messages.js';
import { makeSafe, type SafetyOptions } from '../machine/content-safety.js';
import { readTextIfExists } from '../machine/files.js';
import { whenGitFails } from '../machine/git.js';
import { claudeTranscriptPath } from '../agents/claude-session.js';
import { sessionCarrierFor } from '../agents/registry.js';
import { sessionFileInside } from '../agents/session-carrier.js';
import type { Checkout } from './checkout.js';
import { WorkerError } from './worker-run.js';

/**
 * A checkpoint taken on one runner and resumed on another (docs/github-flow.md, 7). The job
 * cannot wait for a person, so it ends, and everything the next runner needs travels on the
 * plan branch in one `wip` commit: the work in progress as the agent left it, and under
 * `.harness/checkpoint/` the question (checkpoint.json) and the files of the agent's session
 * (under session/, as the agent's SessionCarrier names them: for Claude Code the session's
 * transcript). The session goes on the branch rather than into a workflow artifact because
 * the branch is what the next run checks out anyway, needs no extra token scope and outlives
 * the artifact retention; it passes the content-safety pass first like anything committed.
 * The resumed run folds the wip commit away (its changes back as uncommitted work, the
 * checkpoint files removed), so the plan's history never shows it.
 */

export const CHECKPOINT_DIR = '.harness/checkpoint';
export const CHECKPOINT_FILE = `${CHECKPOINT_DIR}/checkpoint.json`;
/** Where a session's files go on the branch, by their path under the CLI's session home. */
export const SESSION_DIR = `${CHECKPOINT_DIR}/session`;
/** Checkpoints saved before sessions were carried as files: Claude Code's transcript alone. */
const LEGACY_TRANSCRIPT_FILE = `${CHECKPOINT_DIR}/session.jsonl`;
export const TRAILER_CHECKPOINT = 'Harness-Checkpoint';

/** Earlier stops' commits a checkpoint keeps at most: a plan asked again this often has other trouble. */
const WAITING_MAX = 20;

const SavedSchema = z.object({
  version: z.literal(1),
  spec: z.string(),
  plan: z.string(),
  agent: z.string(),
  checkpoint: CheckpointSchema,
  /**
   * The agent's session to resume: its files, by their path under the CLI's session home (each
   * is on the branch under SESSION_DIR), or, in checkpoints saved before that, Claude Code's
   * transcript alone.
   */
  session: z.object({ id: z.string().min(1), files: z.array(z.string().min(1)).optional(), transcript: z.string().optional() }).optional(),
  /**
   * The commits earlier stops of this plan wrote their check runs to (each run's starting
   * head), which may still ask for action: a checkpoint asked again (an answer that did not
   * count) stops on a new wip commit, and the run that finally goes on settles them all.
   */
  waiting: z
    .array(z.string().regex(/^[0-9a-f]{40}$/))
    .max(WAITING_MAX)
    .optional(),
  at: z.string(),
});
export type SavedCheckpoint = z.infer<typeof SavedSchema>;

export interface SaveInput {
  spec: string;
  plan: string;
  agent: string;
  checkpoint: Checkpoint;
  logDir: string;
  env: Record<string, string | undefined>;
  safety: SafetyOptions;
  at: Date;
  /** The commits of this and earlier stops whose check runs may still ask for action (SavedSchema's `waiting`). */
  waiting?: readonly string[];
}

/** Commit the work in progress and the checkpoint as one wip commit; returns what was saved. */
export async function saveCheckpoint(checkout: Checkout, input: SaveInput): Promise<SavedCheckpoint> {
  const waiting = [...new Set(input.waiting ?? [])].slice(-WAITING_MAX);
  const saved: SavedCheckpoint = {
    version: 1,
    spec: input.spec,
    plan: input.plan,
    agent: input.agent,
    checkpoint: input.checkpoint,
    ...(waiting.length > 0 ? { waiting } : {}),
    at: input.at.toISOString(),
  };
  const carrier = sessionCarrierFor(input.agent);
  const sessionId = carrier ? await carrier.current(input.logDir) : undefined;
  if (carrier && sessionId) {
    const home = carrier.home(checkout.root, input.env);
    const files = await carrier.files(home, sessionId);
    for (const file of files) {
      const text = await readFile(join(home, file), 'utf8');
      await write(checkout.root, `${SESSION_DIR}/${file}`, (await makeSafe(text, input.safety)).text);
    }
    if (files.length > 0) saved.session = { id: sessionId, files };
  }
  await write(checkout.root, CHECKPOINT_FILE, `${JSON.stringify(saved, null, 2)}\n`);
  await checkout.git.addAll();
  await checkout.git.commit(
    {
      subject: `wip(${input.plan}): waiting at checkpoint ${input.checkpoint.id}`,
      body: 'Work in progress, committed so that the run can continue on another runner; the resumed run folds this commit away.',
      trailers: [
        { key: TRAILER_PLAN, value: input.plan },
        { key: TRAILER_SPEC, value: input.spec },
        { key: TRAILER_CHECKPOINT, value: input.checkpoint.id },
      ],
    },
    { allowEmpty: true, noVerify: true },
  );
  return saved;
}

export interface Restored {
  saved: SavedCheckpoint;
  /** The wip commit folded away: the branch on the remote still points at it, so the next push replaces it (with this lease). */
  wip: string;
}

/**
 * On a resumed run: when HEAD is a wip commit, restore the agent's session where the agent
 * looks for it, fold the commit away and leave its work uncommitted, as the agent left it.
 */
export async function restoreCheckpoint(
  checkout: Checkout,
  input: { spec: string; plan: string; logDir: string; env: Record<string, string | undefined> },
): Promise<Restored | undefined> {
  // Exit 128: HEAD has no parent (a branch of one commit), so it is no wip commit on a plan's work.
  const head = (await checkout.git.log({ base: 'HEAD~1' }).catch(whenGitFails([], 128)))[0];
  if (!head || trailerValue(head.trailers, TRAILER_CHECKPOINT) === undefined || trailerValue(head.trailers, TRAILER_PLAN) !== input.plan) return undefined;
  const text = await readTextIfExists(join(checkout.root, CHECKPOINT_FILE));
  if (text === undefined)
    throw new WorkerError(
      `the plan branch's head ${head.sha.slice(0, 7)} is a wip commit without ${CHECKPOINT_FILE}: reset the branch to the commit before it, or /harness retry ${input.plan}`,
    );
  const parsed = SavedSchema.safeParse(JSON.parse(text));
  if (!parsed.success || parsed.data.plan !== input.plan || parsed.data.spec !== input.spec) {
    throw new WorkerError(`${CHECKPOINT_FILE} on the plan branch is not a checkpoint of ${input.spec} ${input.plan}: /harness retry ${input.plan} starts over`);
  }
  const saved = parsed.data;
  const carrier = sessionCarrierFor(saved.agent);
  if (saved.session && carrier) {
    const home = carrier.home(checkout.root, input.env);
    const files = saved.session.files ?? [];
    for (const file of files) {
      const inside = sessionFileInside(file);
      if (inside === undefined)
        throw new WorkerError(
          `${CHECKPOINT_FILE} on the plan branch names the session file "${file}", outside the agent's session folder: /harness retry ${input.plan} starts over`,
        );
      const source = join(checkout.root, SESSION_DIR, inside);
      // A symlink on the branch would hand the agent whatever file it names on this runner.
      if (!(await lstat(source)).isFile())
        throw new WorkerError(`${SESSION_DIR}/${inside} on the plan branch is not a file (a symlink or a folder): /harness retry ${input.plan} starts over`);
      await write(home, inside, await readFile(source, 'utf8'));
    }
    if (saved.session.transcript !== undefined && saved.agent === 'claude') {
      const target = claudeTranscriptPath(checkout.root, saved.session.id, input.env);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, await readFile(join(checkout.root, LEGACY_TRANSCRIPT_FILE), 'utf8'));
    }
    await carrier.seed(input.logDir, { sessionId: saved.session.id, checkpoint: saved.checkpoint });
  }
  await checkout.git.run(['reset', '--quiet', '--mixed', 'HEAD~1']);
  await rm(join(checkout.root, CHECKPOINT_DIR), { recursive: true, force: true });
  return { saved, wip: head.sha };
}

async function write(root: string, path: string, text: string): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), text);
}
