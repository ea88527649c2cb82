import { frontmatterText } from './frontmatter-text.js';

const MAX_TITLE = 200;

export interface SpecDocumentInput {
  id: string;
  title: string;
  /** PROJECT.md's "Core Value" line, when it has one. */
  coreValue?: string;
  /** Spec-relative paths of the documents that were imported. */
  has: ReadonlySet<string>;
}

/** The SPEC.md of an imported GSD project: its id and title, pointing at the GSD documents. */
export function specDocument(input: SpecDocumentInput): string {
  const links: [string, string][] = [
    ['planning/PROJECT.md', 'what is being built and why'],
    ['planning/REQUIREMENTS.md', 'the requirements plans refer to'],
    ['ROADMAP.md', 'the phases, in order'],
    ['planning/STATE.md', "GSD's state when the project was imported, kept for history"],
  ];
  const list = links
    .filter(([path]) => input.has.has(path))
    .map(([path, what]) => `- [${path}](${path}): ${what}`)
    .join('\n');
  const value = input.coreValue ? `> ${input.coreValue}\n\n` : '';
  return `${frontmatterText({ id: input.id, title: input.title })}
# ${input.title}

${value}Imported from a GSD \`.planning/\` directory by \`harness import\`. The project's own words are in
the planning documents:

${list || '- (the GSD tree had no PROJECT.md or REQUIREMENTS.md)'}

Plans are under \`planning/plans/\`, in harness's PLAN.md form; GSD's summaries and verifications of
work already done are under \`execution/phases/\`.
`;
}

/** The project's name: PROJECT.md's first heading, without GSD's "Project:" prefix. */
export function projectTitle(text: string): string | undefined {
  const heading = /^#\s+(.+?)\s*#*\s*$/m.exec(text);
  if (!heading) return undefined;
  const title = heading[1]!
    .replace(/^(project|roadmap)\s*:\s*/i, '')
    .replace(/[*_`]+/g, '')
    .trim();
  return title ? title.slice(0, MAX_TITLE) : undefined;
}

/** The sentence under PROJECT.md's "## Core Value" heading. */
export function coreValue(text: string): string | undefined {
  const m = /^##\s+Core Value\s*\n+([^\n#][^\n]*)/im.exec(text);
  const line = m?.[1]?.trim();
  return line && !line.startsWith('<!--') ? line : undefined;
}
