import { describe, expect, it } from 'vitest';
import { isStopRequest, stopTriggerOf } from '../../../../workflows/runtime/kill-switch';
import { whyNotMeaningful } from '../../../../workflows/person-commands/command-meaning';
import type { Observation, ObservationFacts } from '../../../../workflows/ledger/observation';
import { FEATURE_DEFINITION } from '../../../../workflows/built-in-definitions';
import { decideTicketComment } from '../../../../workflows/person-commands/command-comments';
import { waitingPosition } from './fixtures';

const observation = (event: Observation['event'], facts: ObservationFacts): Observation => ({
  delivery_identity: 'i', source: 'webhook', source_system: event === 'issue_comment' ? 'scmhost' : 'tracker', event, resource: { kind: 'x', id: '1' },
  revision: null, fingerprint: 'f', ticket_key: 'P-1', facts, observed_at: null, received_at: '2026-11-25T00:00:00.000Z',
});

describe('stop requests seen while a station runs', () => {
  it('are the label added or a /service stop comment on the ticket or a pull request', () => {
    expect(isStopRequest(observation('issue_updated', { label_change: { added: ['service:stop'], removed: [] } }))).toBe(true);
    expect(isStopRequest(observation('issue_updated', { label_change: { added: [], removed: ['service:stop'] } }))).toBe(false);
    expect(isStopRequest(observation('issue_commented', { comment: { id: 'c', body: '  /Service STOP \nplease' } }))).toBe(true);
    expect(isStopRequest(observation('issue_comment', { comment: { id: 'c', body: '/service stop' } }))).toBe(true);
    expect(isStopRequest(observation('issue_commented', { comment: { id: 'c', body: 'do not /service stop' } }))).toBe(false);
    expect(isStopRequest(observation('issue_commented', { comment: { id: 'c', body: '/service stopwatch' } }))).toBe(false);
  });

  // The kill switch asks before the command boundary does, but by the parser's own reading of the verb: a comment it
  // takes for a stop is one the boundary takes for a stop, and the other way round.
  it('takes a comment for a stop exactly where the comment parser reads `/service stop`', () => {
    const position = waitingPosition(FEATURE_DEFINITION, 'feature', 'implement_task', '/service stop');
    const corpus = [
      '/service stop', '  /Service STOP \nplease', '/service\tstop', '/service  stop  ', '\n/service stop', '/service stop now', '/service stop!',
      '/service\nstop', '/servicestop', '/service stopwatch', 'please /service stop', '/service', '/service approve', '/service STOP\r\nbecause',
      '\u00a0/service stop', '/service\u00a0stop', '/ service stop', '> /service stop', '`/service stop`', '/service stop\u200b',
    ];
    for (const body of corpus) {
      const parsed = decideTicketComment(body, position);
      const parserStops = parsed.kind === 'command' && parsed.command.type === 'stop';
      expect([body, isStopRequest(observation('issue_commented', { comment: { id: 'c', body } }))]).toEqual([body, parserStops]);
    }
  });

  // The one judgement: a stop during a station is judged where the ticket stands, as the intake judges it.
  it('judges a stop by the trigger it is, where the ticket stands: meaningful while a station runs, not once blocked', () => {
    const label = observation('issue_updated', { label_change: { added: ['service:stop'], removed: [] } });
    const comment = observation('issue_commented', { comment: { id: 'c', body: '/service stop' } });
    expect([stopTriggerOf(label), stopTriggerOf(comment)]).toEqual(['stop_label', 'stop_command']);
    const running = waitingPosition(FEATURE_DEFINITION, 'feature', 'implement_task', '/service stop', { is_paused: false });
    for (const request of [label, comment]) {
      expect(whyNotMeaningful(stopTriggerOf(request), running)).toBeUndefined();
      expect(whyNotMeaningful(stopTriggerOf(request), { ...running, is_blocked: true })).toContain('blocked');
    }
  });
});
