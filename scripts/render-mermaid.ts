import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromiumPath, CHROMIUM_ARGS } from '../app/machine/verify-browser.js';

/**
 * Mermaid charts drawn as GitHub draws them: Mermaid's own browser bundle (the devDependency
 * `mermaid`) in the headless Chromium the ui checks use (playwright-core). For the tests that
 * check the charts harness writes render (every task a bar, no error), and for the screenshot
 * in docs/observability.md (`npx tsx scripts/render-mermaid.ts`).
 */

export interface Rendered {
  /** Mermaid's error, when it could not draw the chart. */
  error?: string;
  /** Bars drawn (a gantt's `rect.task`). */
  bars: number;
  /** The bars' labels, as drawn. */
  labels: string[];
}

interface Page {
  setContent(html: string): Promise<void>;
  addScriptTag(options: { content: string }): Promise<unknown>;
  evaluate<T, A>(fn: (arg: A) => Promise<T>, arg: A): Promise<T>;
  setViewportSize(size: { width: number; height: number }): Promise<void>;
  locator(selector: string): { screenshot(options: { path: string }): Promise<unknown> };
}

/** Each chart rendered in one browser page; with `screenshot`, the last one saved there as a PNG. */
export async function renderMermaid(charts: readonly string[], options: { screenshot?: string; width?: number } = {}): Promise<Rendered[]> {
  const require = createRequire(import.meta.url);
  const { chromium } = (await import('playwright-core')) as unknown as {
    chromium: { launch(o: object): Promise<{ newPage(): Promise<Page>; close(): Promise<void> }> };
  };
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    await page.setViewportSize({ width: options.width ?? 1200, height: 800 });
    await page.setContent('<!doctype html><html><body style="margin:0;background:#fff"><div id="chart"></div></body></html>');
    await page.addScriptTag({ content: readFileSync(require.resolve('mermaid/dist/mermaid.min.js'), 'utf8') });
    const out: Rendered[] = [];
    for (const [i, chart] of charts.entries()) {
      out.push(
        await page.evaluate(
          async ({ text, id }) => {
            const w = globalThis as unknown as {
              mermaid: { initialize(o: object): void; render(id: string, text: string): Promise<{ svg: string }> };
              document: { getElementById(id: string): { innerHTML: string; querySelectorAll(s: string): ArrayLike<{ textContent: string | null }> } };
            };
            w.mermaid.initialize({ startOnLoad: false, gantt: { useWidth: 1200 } });
            const host = w.document.getElementById('chart');
            try {
              host.innerHTML = (await w.mermaid.render(id, text)).svg;
            } catch (e) {
              host.innerHTML = '';
              return { error: String((e as Error).message ?? e), bars: 0, labels: [] };
            }
            const labels = Array.from(host.querySelectorAll('text.taskText, text.taskTextOutsideRight, text.taskTextOutsideLeft')).map((t) =>
              (t.textContent ?? '').trim(),
            );
            return { bars: host.querySelectorAll('rect.task').length, labels };
          },
          { text: chart, id: `chart${i}` },
        ),
      );
    }
    if (options.screenshot) await page.locator('#chart svg').screenshot({ path: options.screenshot });
    return out;
  } finally {
    await browser.close();
  }
}

/** The first ```mermaid block of a Markdown text whose chart starts with `kind`. */
export function mermaidBlock(markdown: string, kind = 'gantt'): string | undefined {
  for (const m of markdown.matchAll(/```mermaid\n([\s\S]*?)```/g)) if (m[1]!.startsWith(kind)) return m[1];
  return undefined;
}

// `npx tsx scripts/render-mermaid.ts <markdown> <png>`: the Markdown's timeline drawn into a PNG (docs/observability.md's screenshot).
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const [file, png] = process.argv.slice(2);
  if (!file || !png) {
    console.error('usage: npx tsx scripts/render-mermaid.ts <markdown with a gantt> <out.png>');
    process.exit(2);
  }
  const chart = mermaidBlock(readFileSync(file, 'utf8'));
  if (!chart) {
    console.error(`${file}: no \`\`\`mermaid block with a gantt chart`);
    process.exit(1);
  }
  const [rendered] = await renderMermaid([chart], { screenshot: png });
  if (rendered!.error) {
    console.error(`${file}: Mermaid could not draw it: ${rendered!.error}`);
    process.exit(1);
  }
  console.log(`${png}: ${rendered!.bars} bars`);
}
