import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { planJsonSchema } from '../../../../app/engine/core/spec/schema.js';
import { ROOT } from '../../../helpers/paths.js';

describe('the PLAN.md JSON Schema', () => {
  it('is the committed schema/plan.schema.json (run `npm run schema` after changing the zod schema)', () => {
    const committed = JSON.parse(readFileSync(join(ROOT, 'schema/plan.schema.json'), 'utf8'));
    expect(committed).toEqual(planJsonSchema());
  });

  it('describes every verification type and the required keys', () => {
    const schema = planJsonSchema() as { required: string[]; properties: { must_pass: { items: { oneOf: { properties: { type: { const: string } } }[] } } } };
    expect(schema.required).toEqual(['plan_id', 'title']);
    expect(schema.properties.must_pass.items.oneOf.map((o) => o.properties.type.const)).toEqual([
      'file_exists',
      'file_contains',
      'command_output',
      'build_succeeds',
      'tests_pass',
      'api_response',
      'ui_element_exists',
      'ui_navigation',
      'human',
      'visual_quality',
      'ux_flow',
      'artifact',
      'key_link',
    ]);
  });
});
