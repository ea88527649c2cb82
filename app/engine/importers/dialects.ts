import type { PlanReading } from '../core/spec/plan.js';
import { GSD_PLAN_DIALECT } from './gsd/plan.js';

/**
 * The plan forms harness reads besides its own, for every place that reads plans (the CLI,
 * the runner, the worker, the App's sync and rounds). GSD's is normalised here, before the
 * spec loader sees it; the loader itself knows no importer.
 */
export const PLAN_READING: PlanReading = { dialects: [GSD_PLAN_DIALECT] };
