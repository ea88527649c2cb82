import type { Heartbeat } from '../engine/lifecycle/heartbeat.js';
import type { Progress } from '../engine/lifecycle/ports.js';

/** The job's log: core.info, core.warning and core.group on a runner; a list in tests. */
export interface WorkerLog {
  info(message: string): void;
  warning(message: string): void;
  /** Fold the lines `work` logs under a heading. */
  group<T>(name: string, work: () => Promise<T>): Promise<T>;
}

/** An attempt's progress as lines of the job's log, each stage folded under its title. */
export function jobProgress(log: WorkerLog): Progress {
  return {
    event(e) {
      switch (e.kind) {
        case 'agent-started':
          return log.info(`agent ${e.agent} started`);
        case 'task-started':
          return log.info(`[${e.task}/${e.total}] ${e.title}`);
        case 'progress':
          return log.info(e.message);
        case 'agent-waiting':
          return log.info(`checkpoint ${e.checkpoint.id} (${e.checkpoint.kind}): ${e.checkpoint.prompt.split('\n')[0]}`);
        case 'agent-answered':
          return log.info(`checkpoint ${e.checkpoint.id} was answered on the plan issue by ${e.answer.by ?? 'someone'}: ${e.answer.answer}`);
        case 'check': {
          const r = e.result;
          return log.info(`${r.status.padEnd(5)} ${r.plan === undefined ? '' : `${r.plan}/`}${r.id} (${r.type}): ${r.evidence.split('\n')[0]}`);
        }
        default:
          return;
      }
    },
    stage: (title, work) => log.group(title, work),
  };
}

/** The job's log, with the heartbeat told of every line written to it. */
export function heardLog(log: WorkerLog, heartbeat: Heartbeat): WorkerLog {
  return {
    info(message) {
      heartbeat.heard();
      log.info(message);
    },
    warning(message) {
      heartbeat.heard();
      log.warning(message);
    },
    group(name, work) {
      heartbeat.heard();
      return log.group(name, work);
    },
  };
}
