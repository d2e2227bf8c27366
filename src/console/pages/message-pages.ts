import { html, type SafeHtml } from '../html';

/** The sign-in form: the token goes in a POST body, never in an address (where logs and history would keep it). */
export function loginPage(problem: string | undefined, next: string): SafeHtml {
  return html`<h1>Sign in</h1>
${problem ? html`<p class="error">${problem}</p>` : ''}
<form method="post" action="/console/login" class="panel">
<p><label>Operator token (SERVICE_OPERATOR_TOKEN)<br><input type="password" name="token" autocomplete="current-password" required size="40" autofocus></label></p>
<input type="hidden" name="next" value="${next}">
<p><button type="submit">Sign in</button></p>
<p class="muted small">The console only reads: commands stay in the tracker. The session cookie holds no token and ends after 12 hours.</p>
</form>`;
}

export function errorPage(title: string, message: string): SafeHtml {
  return html`<h1>${title}</h1><p class="error">${message}</p><p><a href="/console/">back to the board</a></p>`;
}
