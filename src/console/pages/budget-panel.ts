import type { BudgetLimits } from '../../budgets/token-budget';
import { html, type SafeHtml } from '../html';

function meter(spent: number, limit: number | null): SafeHtml {
  if (limit === null) return html`<span class="muted small">no limit</span>`;
  const share = limit === 0 ? 1 : spent / limit;
  return html`<progress value="${Math.min(spent, limit)}" max="${Math.max(limit, 1)}" title="${Math.round(share * 100)}%"></progress> <span class="small${share >= 1 ? ' blockcode' : ''}">${Math.round(share * 100)}% of ${limit.toLocaleString('en')}</span>`;
}

/**
 * Tokens spent against the deployment's budgets (SERVICE_TOKEN_BUDGET_TICKET, SERVICE_TOKEN_BUDGET_STAGE). A project's
 * own `service.token_budget` is read from the tracker by the worker only; the console does not show it.
 */
export function budgetPanel(spent: number, byStage: Readonly<Record<string, number>>, limits: BudgetLimits): SafeHtml {
  const stages = Object.entries(byStage).sort(([a], [b]) => a.localeCompare(b));
  return html`<table class="budget"><thead><tr><th>scope</th><th>tokens</th><th>budget</th></tr></thead><tbody>
<tr data-scope="ticket"><td>ticket</td><td>${spent.toLocaleString('en')}</td><td>${meter(spent, limits.ticket)}</td></tr>
${stages.map(([stage, tokens]) => html`<tr data-scope="${stage}"><td>${stage}</td><td>${tokens.toLocaleString('en')}</td><td>${meter(tokens, limits.stages[stage] ?? limits.stage)}</td></tr>`)}
</tbody></table><p class="muted small">budgets of the deployment; a project's own service.token_budget is not shown here</p>`;
}
