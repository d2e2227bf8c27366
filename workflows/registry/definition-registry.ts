import { allHandlersFinished, ApplicationFailure, condition, continueAsNew, setHandler, upsertMemo, workflowInfo } from '@temporalio/workflow';
import { addRevision, decidePublish, emptyRegistry, latestOfEach, type PublishedRevision, type RegistryState } from './definition-registry-state';
import { publishDefinitionUpdate, publishedDefinitionQuery, publishedRevisionsQuery, REGISTRY_LATEST_MEMO } from './definition-registry-messages';

/** Continue-as-new well before Temporal would suggest it: each publish adds a handful of events. */
const HISTORY_EVENT_LIMIT = 1_000;

/**
 * The definition registry (DESIGN 6): a long-lived workflow per task queue holding the published revisions of custom
 * definitions. `publishDefinition` is an Update whose validator refuses a name no ticket can select, a revision that
 * does not increase, and a taken revision with another digest, before anything is written; publishing the same
 * revision and digest again answers the existing one. The newest revision of each name is mirrored into the memo,
 * so the gateway pins it at ticket start with a describe() that needs no worker. The history stays small by
 * continuing as new with the state as the only argument.
 */
export async function definitionRegistryWorkflow(carried?: RegistryState): Promise<void> {
  const state: RegistryState = carried ?? emptyRegistry();
  const mirror = () => upsertMemo({ [REGISTRY_LATEST_MEMO]: latestOfEach(state) });
  if (carried) mirror();

  setHandler(publishedRevisionsQuery, () => state.revisions);
  setHandler(publishedDefinitionQuery, ({ name, revision }) => {
    const found = state.revisions.find((r) => r.name === name && r.revision === revision);
    return found ? { name: found.name, revision: found.revision, digest: found.digest, body: found.body } : null;
  });
  setHandler(publishDefinitionUpdate, ({ definition, published_by }) => {
    const decision = decidePublish(state, definition);
    const publishedAt = new Date().toISOString();
    if (decision.type === 'existing') {
      const r = decision.revision;
      return { created: false, name: r.name, revision: r.revision, digest: r.digest, published_at: r.published_at };
    }
    const revision: PublishedRevision = { ...definition, published_at: publishedAt, published_by };
    addRevision(state, revision);
    mirror();
    return { created: true, name: revision.name, revision: revision.revision, digest: revision.digest, published_at: publishedAt };
  }, {
    validator: ({ definition }) => {
      const decision = decidePublish(state, definition);
      if (decision.type === 'refuse') throw ApplicationFailure.nonRetryable(decision.reason, 'DefinitionRefused');
    },
  });

  await condition(() => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= HISTORY_EVENT_LIMIT);
  await condition(allHandlersFinished);
  await continueAsNew<typeof definitionRegistryWorkflow>(state);
}
