// Writes schema/plan.schema.json from the zod schema: `npm run schema`. A test fails when it is stale.
import { writeFileSync } from 'node:fs';
import { planJsonSchema } from '../app/engine/core/spec/schema.js';

const target = new URL('../schema/plan.schema.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(planJsonSchema(), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
