import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEvalCriteria } from '../../../src/skill-testing/eval-criteria';
import { loadSkillInput } from '../../../src/skill-testing/skill-input';
import { planInputs } from '../../../src/skill-testing/run-skill-tests';

function file(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'skill-files-'));
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('test-skill input files', () => {
  it('reads a valid input and fills the optional lists', () => {
    const path = file('input.yaml', 'ticket_key: PROJ-12\ntitle: Export as CSV\nprompt: Write the PRD\n');
    expect(loadSkillInput(path)).toEqual({ ticket_key: 'PROJ-12', title: 'Export as CSV', prompt: 'Write the PRD', available_repos: [], prompt_inputs: {} });
  });

  it('names the file and every wrong field', () => {
    const path = file('input.yaml', 'ticket_key: twelve\ntitle: ""\navailable_repos: acme/api\nprompt_inputs: [1]\nextra: 1\n');
    let message = '';
    try {
      loadSkillInput(path);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(`${path}: ticket_key: expected a ticket key like PROJ-123`);
    expect(message).toContain(`${path}: title: must not be empty`);
    expect(message).toContain(`${path}: available_repos: expected a list of repository names`);
    expect(message).toContain(`${path}: prompt: required: what the skill is asked to do`);
    expect(message).toContain(`${path}: prompt_inputs: expected a mapping`);
    expect(message).toMatch(/extra/);
  });

  it('says when the YAML itself is broken', () => {
    const path = file('input.yaml', 'ticket_key: [unclosed\n');
    expect(() => loadSkillInput(path)).toThrow(`${path}: not valid YAML`);
  });

  it('rejects a dataset with one bad case before any model call, naming that case file', () => {
    const dataset = mkdtempSync(join(tmpdir(), 'skill-dataset-'));
    for (const [id, text] of [['a', 'ticket_key: P-1\ntitle: A\nprompt: go\n'], ['b', 'ticket_key: P-2\nprompt: go\n']] as const) {
      const dir = join(dataset, id);
      mkdirSync(dir);
      writeFileSync(join(dir, 'input.yaml'), text);
    }
    expect(() => planInputs({ dataset, output: '/tmp/x' })).toThrow(`1 of 2 inputs are invalid:\n${join(dataset, 'b', 'input.yaml')}: title: required`);
  });
});

describe('eval criteria files', () => {
  const valid = [
    'skill: generate_prd', 'judge_model: sim:judge', 'gold_standard_file: gold.md', 'generated_file_patterns: ["*.md"]',
    'criteria:', '  - {id: scope, name: Scope, weight: critical, prompt: "Is the scope right?"}',
    '  - {id: style, name: Style, weight: important, prompt: "Is it plain?"}',
  ].join('\n');

  it('reads criteria with the defaults of pass_threshold and fail_on_critical', () => {
    const criteria = loadEvalCriteria(file('criteria.yaml', valid));
    expect(criteria.pass_threshold).toBe(0.7);
    expect(criteria.fail_on_critical).toBe(true);
    expect(criteria.criteria.map((c) => c.id)).toEqual(['scope', 'style']);
  });

  it('refuses duplicate ids, unknown weights and thresholds above 1, naming the field', () => {
    const path = file('criteria.yaml', `${valid}\n  - {id: scope, name: Again, weight: nice, prompt: x}\npass_threshold: 75\n`);
    expect(() => loadEvalCriteria(path)).toThrow(/criteria\.2\.weight: expected critical or important[\s\S]*pass_threshold/);
  });
});
