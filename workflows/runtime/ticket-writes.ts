import { effectKey } from '../effects/effect-journal';
import { runKeyedEffect, type EffectContext } from '../effects/effect-runner';
import type { EffectOperation } from '../effects/effect-types';
import type { Observation } from '../ledger/observation';
import { noteProposalOpened } from '../person-commands/proposal-review';
import type { DriverContext } from './driver-context';
import type { EffectIntent } from './station-types';

/**
 * The ticket's writes, each through the effect journal (SPEC 2.3) under a key of its name and the node and visit it
 * belongs to. A required write that fails blocks the ticket: `block` comes from ./block-reporter.ts, which reports
 * the block with writes of its own.
 */
export function createTicketWrites(
  context: Pick<DriverContext, 'state' | 'settings' | 'runtime' | 'ticketKey' | 'publish' | 'visit'>,
  effects: EffectContext,
  block: (code: string, message: string) => Promise<void>,
) {
  const { state, settings, runtime, ticketKey, publish, visit } = context;

  /** Runs one named write of a node's visit (the current one unless named) through the journal; whether it succeeded. */
  const effect = async (name: string, operation: EffectOperation, required = false, at?: { node: string; visit: number }): Promise<boolean> => {
    const node = at?.node ?? state.checkpoint.current_node;
    const key = effectKey({ ticket_key: ticketKey, run_id: state.run_id, node, visit: at?.visit ?? visit(), name });
    const record = await runKeyedEffect(effects, {
      key, node, operation, required, timeoutSeconds: settings.effect_timeout_seconds, summary: `${name} (${operation.kind}) for ${ticketKey} at ${node}`,
    });
    // A write that opened or adopted a pull request names it: the PR joins the ticket's index at once, before any
    // webhook about it arrives.
    const opened = record.status === 'succeeded' ? record.attempts.at(-1)?.evidence?.ids?.pull_request : undefined;
    // A proposal pull request (the PRD or spec under review) is remembered apart: it is not part of the change.
    if (opened && !noteProposalOpened(runtime, operation, opened) && !state.pull_requests.includes(opened)) {
      state.pull_requests.push(opened);
      publish();
    }
    if (required && record.status !== 'succeeded') {
      await block('effect_unresolved', `required effect ${name} (${record.idempotency_key}) ended ${record.status}: ${record.attempts.at(-1)?.error ?? 'no detail'}`);
    }
    return record.status === 'succeeded';
  };
  const runIntents = async (intents: EffectIntent[]): Promise<boolean> => {
    for (const intent of intents) {
      const ok = await effect(intent.name, intent.operation, intent.required ?? false);
      if (!ok && intent.required) return false;
    }
    return true;
  };

  const reply = (name: string, observation: Observation, body: string) => {
    const pr = observation.facts.pull_request;
    if (observation.source_system === 'scmhost' && pr && observation.facts.repository) {
      return effect(name, { kind: 'scmhost.pr_comment', repository: observation.facts.repository, number: pr.number, body });
    }
    return effect(name, { kind: 'tracker.comment', issue_key: ticketKey, body });
  };

  return { effect, runIntents, reply };
}

export type TicketWrites = ReturnType<typeof createTicketWrites>;
