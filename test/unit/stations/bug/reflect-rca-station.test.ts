import { describe, expect, it } from 'vitest';
import { reflectionStep } from '../../../../activities/stations/bug/reflect-rca-station';
import { sha256 } from '../../../../activities/stations/planning/document-stations';
import { stationFailureDetails } from '../../../../activities/stations/station-failure';
import type { ReflectionData } from '../../../../activities/stations/bug/flow-data';
import { fakeWorld, stationInput } from './host-station-fakes';
import { analysisFixture } from './rca-fixture';

const sentBack = (round: number): ReflectionData => ({ verdict: 'critique', critique: 'again', round, sent_back: true, converged: false, option_count: 0 });

describe('the reflection rounds', () => {
  it('sends a critique back in rounds 1 and 2 and goes on in round 3, not converged', () => {
    expect(reflectionStep(undefined, 'critique', 'c1', 2)).toEqual({ outcome: 'critique', data: { verdict: 'critique', critique: 'c1', round: 1, sent_back: true, converged: false, option_count: 0 } });
    expect(reflectionStep(sentBack(1), 'critique', 'c2', 2)).toMatchObject({ outcome: 'critique', data: { round: 2, sent_back: true } });
    expect(reflectionStep(sentBack(2), 'critique', 'c3', 2)).toEqual({ outcome: 'done', data: { verdict: 'critique', critique: 'c3', round: 3, sent_back: false, converged: false, option_count: 2 } });
  });

  it('goes on with a valid analysis in any round', () => {
    expect(reflectionStep(sentBack(1), 'valid', null, 3)).toEqual({ outcome: 'done', data: { verdict: 'valid', critique: null, round: 2, sent_back: false, converged: true, option_count: 3 } });
  });

  it('starts at round 1 again after anything but a send-back (a `!` at the option gate)', () => {
    const posted: ReflectionData = { verdict: 'critique', critique: 'c3', round: 3, sent_back: false, converged: false, option_count: 2 };
    expect(reflectionStep(posted, 'critique', 'new', 2)).toMatchObject({ outcome: 'critique', data: { round: 1 } });
  });
});

describe('reflect_rca', () => {
  it('sends the analysis back without a comment while critiques remain', async () => {
    const world = fakeWorld();
    world.answers.push({ verdict: 'CRITIQUE', critique: 'writeRows does not close the cursor; check close() callers.' });
    const result = await world.stations.reflect_rca(stationInput('reflect_rca', { outputs: { analyze_bug: analysisFixture() } }));
    expect(world.calls[0]!.prompt).toContain('src/export/csv.ts');
    expect(result).toMatchObject({ outcome: 'critique', data: { round: 1, sent_back: true, critique: 'writeRows does not close the cursor; check close() callers.' } });
    expect(result.effects).toBeUndefined();
    expect(result.artifacts).toBeUndefined();
  });

  it('posts the valid analysis as the `rca` artifact with its options', async () => {
    const world = fakeWorld();
    world.answers.push({ verdict: 'VALID', critique: '' });
    const result = await world.stations.reflect_rca(stationInput('reflect_rca', { outputs: { analyze_bug: analysisFixture(3), reflect_rca: sentBack(1) } }));
    expect(world.calls[0]!.prompt).toContain('again');
    expect(result).toMatchObject({ outcome: 'done', data: { verdict: 'valid', round: 2, converged: true, option_count: 3, sent_back: false } });
    const text = result.artifacts!.rca!.text;
    expect(result.artifacts!.rca!.digest).toBe(sha256(text));
    expect(text).toContain('#### Option 3: Fix 3');
    expect(result.effects!.map((e) => e.name)).toEqual(['post_rca_part_1']);
    expect((result.effects![0]!.operation as { body: string }).body).toBe(text);
  });

  it('posts the analysis as it stands after the third critique, saying so', async () => {
    const world = fakeWorld();
    world.answers.push({ verdict: 'CRITIQUE', critique: 'Confidence is too high.' });
    const result = await world.stations.reflect_rca(stationInput('reflect_rca', { outputs: { analyze_bug: analysisFixture(), reflect_rca: sentBack(2) } }));
    expect(result).toMatchObject({ outcome: 'done', data: { round: 3, converged: false, option_count: 2 } });
    expect(result.artifacts!.rca!.text).toContain('did not converge after three rounds');
    expect(result.artifacts!.rca!.text).toContain('Confidence is too high.');
  });

  it('blocks when there is no analysis to reflect on', async () => {
    const world = fakeWorld();
    const error = await world.stations.reflect_rca(stationInput('reflect_rca')).catch((e: unknown) => e);
    expect(stationFailureDetails(error)?.code).toBe('analysis_missing');
  });
});
