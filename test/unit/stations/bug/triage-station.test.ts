import { describe, expect, it } from 'vitest';
import { BUG_CHECKLIST, judgeChecklist, TAKEOVER_CHECKLIST, triageDecision } from '../../../../activities/stations/bug/triage-station';
import type { TriageData } from '../../../../activities/stations/bug/flow-data';
import { fakeWorld, stationInput } from './host-station-fakes';

const ids = BUG_CHECKLIST.map((item) => item.id);
/** The model's answer: every item present except `missing`. */
const answer = (missing: string[], order = ids) => ({ items: order.map((item) => ({ item, present: !missing.includes(item), note: missing.includes(item) ? `no ${item}` : 'given' })) });

describe('the triage checklist', () => {
  it('keeps the checklist order, counts an omitted item as missing and ignores unknown items', () => {
    const judged = judgeChecklist(BUG_CHECKLIST, {
      items: [
        { item: 'context', present: false, note: 'who is affected?' },
        { item: 'Expected vs actual behaviour', present: true, note: 'given' },
        { item: 'mood_of_reporter', present: false, note: 'grumpy' },
        { item: 'steps_to_reproduce', present: true, note: 'given' },
        { item: 'steps_to_reproduce', present: false, note: 'a second answer does not count' },
        { item: 'environment', present: true, note: '' },
        { item: 'affected_versions', present: true, note: '' },
        { item: 'affected_component', present: true, note: '' },
      ],
    });
    expect(judged.filter((j) => !j.present).map((j) => j.item.id)).toEqual(['error_output', 'context']);
    expect(judged.find((j) => j.item.id === 'context')!.note).toBe('who is affected?');
  });

  it('takes what the host knows over the model', () => {
    const judged = judgeChecklist(TAKEOVER_CHECKLIST, { items: [{ item: 'repository', present: false, note: 'which repo?' }] }, ['repository']);
    expect(judged.filter((j) => !j.present).map((j) => j.item.id)).toEqual(['intent', 'scope', 'expected_outcome']);
  });
});

describe('the triage decision', () => {
  const incomplete = (asked: string[]): TriageData => ({ verdict: 'incomplete', missing: asked, asked });

  it('asks for the missing items the first time', () => {
    expect(triageDecision(['environment', 'context'], undefined)).toEqual({ data: { verdict: 'incomplete', missing: ['environment', 'context'], asked: ['environment', 'context'] }, ask: true });
  });

  it('does not ask the same set twice in a row, but asks a different one', () => {
    expect(triageDecision(['environment', 'context'], incomplete(['context', 'environment']))).toMatchObject({ ask: false, data: { asked: ['environment', 'context'] } });
    expect(triageDecision(['context'], incomplete(['environment', 'context']))).toMatchObject({ ask: true, data: { missing: ['context'], asked: ['context'] } });
  });

  it('is complete without a question once nothing is missing', () => {
    expect(triageDecision([], incomplete(['context']))).toEqual({ data: { verdict: 'complete', missing: [], asked: null }, ask: false });
  });
});

describe('triage_check', () => {
  it('asks a bug reporter for exactly the missing items, with a `!` reply or an edit', async () => {
    const world = fakeWorld();
    world.comments.push({ id: 'c1', body: 'Happens on Firefox.', author: { displayName: 'Rea' } as never, created: '2026-01-02', updated: '2026-01-02' });
    world.answers.push(answer(['affected_versions', 'error_output']));

    const result = await world.stations.triage_check(stationInput('triage_check'));

    expect(world.calls[0]!.system).toContain('triage bug reports');
    expect(world.calls[0]!.prompt).toContain('Exporting a report crashes the page.');
    expect(world.calls[0]!.prompt).toContain('Happens on Firefox.');
    expect(world.calls[0]!.prompt).toContain('`steps_to_reproduce`');
    expect(result.outcome).toBe('incomplete');
    expect(result.data).toEqual({ verdict: 'incomplete', missing: ['affected_versions', 'error_output'], asked: ['affected_versions', 'error_output'] });
    expect(result.effects!.map((e) => e.name)).toEqual(['triage_question']);
    const body = (result.effects![0]!.operation as { body: string }).body;
    expect(body.match(/^- \*\*.+$/gm)).toEqual(['- **Affected versions**: no affected_versions', '- **Error output**: no error_output']);
    expect(body).toContain('`!`');
    expect(body).toContain('edit the ticket');
  });

  it('gives the model the `!` reply, posts nothing when the same items are still missing', async () => {
    const world = fakeWorld();
    world.answers.push(answer(['affected_versions']));
    const result = await world.stations.triage_check(stationInput('triage_check', {
      visit: 2, outputs: { triage_check: { verdict: 'incomplete', missing: ['affected_versions'], asked: ['affected_versions'] } },
      request: { kind: 'feedback', text: '! it is on every build', author: 'Rea' },
    }));
    expect(world.calls[0]!.prompt).toContain('## Latest reply from Rea\n\n! it is on every build');
    expect(result).toMatchObject({ outcome: 'incomplete', effects: [], data: { asked: ['affected_versions'] } });
  });

  // The triage gate's label is the gate's to take off (workflows/runtime/step.ts): the station writes no label.
  it('goes on when complete, writing nothing, after the gate', async () => {
    const world = fakeWorld();
    world.answers.push(answer([], [...ids].reverse()));
    const result = await world.stations.triage_check(stationInput('triage_check', {
      visit: 2, outputs: { triage_check: { verdict: 'incomplete', missing: ['context'], asked: ['context'] } },
    }));
    expect(result.outcome).toBe('complete');
    expect(result.data).toEqual({ verdict: 'complete', missing: [], asked: null });
    expect(result.effects).toEqual([]);
  });

  it('checks a takeover for intent, scope, outcome and repository, and knows the repository from a `repo:` label', async () => {
    const world = fakeWorld({ issue: { issueType: 'Task', labels: ['service:managed', 'repo:acme/web'] } });
    world.answers.push({ items: [{ item: 'intent', present: true, note: '' }, { item: 'scope', present: false, note: 'which pages?' }, { item: 'repository', present: false, note: '' }] });
    const result = await world.stations.triage_check(stationInput('triage_check', { workflow_kind: 'task_takeover', issue_type: 'Task' }));
    expect(world.calls[0]!.system).toContain('Task or Epic');
    expect(result.data).toMatchObject({ missing: ['scope', 'expected_outcome'] });
    const body = (result.effects![0]!.operation as { body: string }).body;
    expect(body).toContain('To take over this task');
    expect(body.match(/^- \*\*.+$/gm)).toEqual(['- **Scope**: which pages?', '- **Expected outcome**']);

    world.answers.push({ items: TAKEOVER_CHECKLIST.map((item) => ({ item: item.id, present: true, note: '' })) });
    const done = await world.stations.triage_check(stationInput('triage_check', { workflow_kind: 'task_takeover', visit: 2, outputs: { triage_check: result.data } }));
    expect(done.effects).toEqual([]);
  });
});
