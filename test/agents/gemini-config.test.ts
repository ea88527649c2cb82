import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../app/engine/core/config/parse.js';
import { agentsConfig } from '../../app/agents/config.js';
import { agentFor, sessionCarrierFor } from '../../app/agents/registry.js';
import { GeminiAgent } from '../../app/agents/gemini.js';
import { geminiSessions } from '../../app/agents/gemini-session.js';

describe('agents.gemini in .github/harness.yml', () => {
  it('becomes the gemini agent: executable, approval mode, turns, model, extra arguments and the price of its tokens', () => {
    const { config, problems } = parseConfig(
      [
        'agent: gemini',
        'agents:',
        '  gemini:',
        '    executable: /opt/gemini/bin/gemini',
        '    approval_mode: yolo',
        '    max_turns: 40',
        '    model: gemini-2.5-pro',
        '    extra_args: ["--include-directories", "../shared"]',
        '    price: { input_per_million: 1.25, output_per_million: 10 }',
        '',
      ].join('\n'),
    );
    expect(problems).toEqual([]);
    expect(config!.agent).toBe('gemini');
    expect(agentsConfig(config!).gemini).toEqual({
      executable: '/opt/gemini/bin/gemini',
      approvalMode: 'yolo',
      maxTurns: 40,
      model: 'gemini-2.5-pro',
      extraArgs: ['--include-directories', '../shared'],
      price: { inputPerMTok: 1.25, outputPerMTok: 10 },
    });
    expect(agentFor('gemini', agentsConfig(config!))).toBeInstanceOf(GeminiAgent);
    expect(sessionCarrierFor('gemini')).toBe(geminiSessions);
  });

  it('refuses an approval mode Gemini CLI does not have, naming the choices', () => {
    const { problems } = parseConfig('agents:\n  gemini:\n    approval_mode: bypassPermissions\n');
    expect(problems).toEqual([
      {
        file: '.github/harness.yml',
        line: 3,
        code: 'field-value',
        message: 'agents.gemini.approval_mode is "bypassPermissions"; it must be one of default, auto_edit, yolo, plan',
        severity: 'error',
      },
    ]);
  });
});
