/**
 * The crash campaign (test/helpers/crash-campaign.ts) at full size: a local run SIGKILLed
 * with its whole process group at 50 seeded random moments, started again after each, then
 * run to the end, and compared with an uninterrupted run of the same spec after
 * normalising timestamps, durations, commit ids, ports and the project's name. Targets: the
 * same files, no commit twice, no worktree and no process left behind.
 */
import type { BenchModule } from './lib.js';
import { crashCampaign } from '../test/helpers/crash-campaign.js';

const KILLS = 50;
const SEED = 0x5eed;

const bench: BenchModule = {
  name: 'crash',
  description: `a local run killed ${KILLS} times at random moments, against an uninterrupted run`,
  async run({ args }) {
    const kills = Number(args[args.indexOf('--kills') + 1]) || KILLS;
    const report = await crashCampaign({ kills, seed: SEED });
    return {
      notes: [
        `seed ${SEED}; kills land 150 ms to 6 s into each run (mostly early); ${report.runs} runs over ${report.rounds} fresh repositories, ${report.seconds} s`,
      ],
      rows: [
        {
          kills: report.kills,
          runs: report.runs,
          'files differing': report.differingFiles.length,
          'duplicate commits': report.duplicateCommits.length,
          'leaked worktrees': report.leakedWorktrees,
          'leaked processes': report.leakedProcesses.length,
          complete: report.complete ? 'yes' : 'no',
        },
      ],
      targets: [
        {
          name: 'the final tree equals an uninterrupted run (normalised)',
          met: report.complete && report.differingFiles.length === 0,
          detail: [report.differingFiles.join(', ') || 'identical', ...report.failures].join('\n'),
        },
        { name: 'no commit of any kind twice', met: report.duplicateCommits.length === 0, detail: report.duplicateCommits.join('; ') || 'none' },
        {
          name: 'no leaked worktree or process',
          met: report.leakedWorktrees === 0 && report.leakedProcesses.length === 0,
          detail: `${report.leakedWorktrees} worktrees, processes ${JSON.stringify(report.leakedProcesses)}`,
        },
      ],
      results: report,
    };
  },
};

export default bench;
