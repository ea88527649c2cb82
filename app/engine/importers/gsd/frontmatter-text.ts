import { Document, isScalar, isSeq, visit } from 'yaml';

/** Short lists of ids read best on one line, as docs/design.md writes them: `depends_on: ["03-01"]`. */
const FLOW_KEYS = new Set(['depends_on', 'requirements', 'exports', 'checkpoints', 'phase_order']);

/** Strings YAML would read back as numbers, or that are ids people expect to see quoted. */
const QUOTED = /^\d+(?:-\d+)*$/;

/** Render frontmatter as a `---` block, keys in the order given, ready to put before a body. */
export function frontmatterText(data: Record<string, unknown>): string {
  const doc = new Document(data);
  visit(doc, {
    Pair(_, pair) {
      if (isScalar(pair.key) && FLOW_KEYS.has(String(pair.key.value)) && isSeq(pair.value)) pair.value.flow = true;
    },
    Scalar(_, node) {
      if (typeof node.value === 'string' && QUOTED.test(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  return `---\n${doc.toString({ lineWidth: 0, flowCollectionPadding: false })}---\n`;
}
