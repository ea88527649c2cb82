import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readTextIfExists } from '../machine/files.js';

/**
 * Checkpoint answers of one plan, kept in `<logDir>/answers.json` as `{ "<checkpoint id>": "<answer>" }`.
 * The runner keeps logDir across restarts, so a resumed worker does not ask a person twice; steps
 * read the same file through HARNESS_ANSWERS (e.g. `jq -r .storage "$HARNESS_ANSWERS"`). It lives
 * in logDir, never in the worktree, where `git add -A` would commit it.
 */
export class AnswerStore {
  private constructor(
    readonly path: string,
    private answers: Record<string, string>,
  ) {}

  static readonly FILE = 'answers.json';

  static async open(logDir: string): Promise<AnswerStore> {
    await mkdir(logDir, { recursive: true });
    const path = join(logDir, AnswerStore.FILE);
    const text = await readTextIfExists(path);
    let answers: Record<string, string> = {};
    if (text !== undefined) {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`${path}: expected a JSON object of answers`);
      answers = Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
    }
    const store = new AnswerStore(path, answers);
    // Steps may read the file before any checkpoint was answered.
    if (text === undefined) await store.save();
    return store;
  }

  get(id: string): string | undefined {
    return Object.hasOwn(this.answers, id) ? this.answers[id] : undefined;
  }

  all(): Readonly<Record<string, string>> {
    return { ...this.answers };
  }

  async set(id: string, answer: string): Promise<void> {
    this.answers = { ...this.answers, [id]: answer };
    await this.save();
  }

  /** Write whole or not at all: a worker killed mid-write must not leave half a file. */
  private async save(): Promise<void> {
    const tmp = `${this.path}.${process.pid}.tmp`;
    await writeFile(tmp, `${JSON.stringify(this.answers, null, 2)}\n`);
    await rename(tmp, this.path);
  }
}
