import { html, trustedHtml, type SafeHtml } from '../html';
import { CONSOLE_CSS } from './console-styles';
import { LIVE_REFRESH_SCRIPT } from './live-refresh-script';

export interface ShellOptions {
  title: string;
  nonce: string;
  body: SafeHtml;
  /** Include the refresh script (pages with a `#live` element). */
  live?: boolean;
  /** Show the navigation and the sign-out button (not on the sign-in page). */
  signedIn?: boolean;
}

/** A whole console page: the inline style and script carry the nonce of the page's Content-Security-Policy. */
export function pageShell(options: ShellOptions): string {
  const nav = options.signedIn === false ? '' : html`<nav><a href="/console/">Board</a><a href="/console/definitions">Definitions</a></nav>
<span class="muted small" id="refresh-status">${options.live ? 'live: refreshes every few seconds' : ''}</span>
<form method="post" action="/console/logout"><button type="submit">Sign out</button></form>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${options.title} · service console</title>
<style nonce="${options.nonce}">${trustedHtml(CONSOLE_CSS)}</style>
</head><body>
<header class="top"><span class="brand">service console</span>${nav}</header>
<main>${options.body}</main>
${options.live ? html`<script nonce="${options.nonce}">${trustedHtml(LIVE_REFRESH_SCRIPT)}</script>` : ''}
</body></html>`.text;
}

/** How long ago, for people: "45 s", "12 min", "3 h", "4 d". Pure. */
export function ageText(since: string | null, now: Date): string {
  if (!since) return '';
  const seconds = Math.max(0, Math.round((now.getTime() - Date.parse(since)) / 1000));
  if (!Number.isFinite(seconds)) return '';
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  if (seconds < 36 * 3600) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} d`;
}

/** A time people read as an age, with the exact time on hover. */
export function timeAgo(since: string | null, now: Date): SafeHtml {
  if (!since) return html``;
  return html`<time datetime="${since}" title="${since}">${ageText(since, now)} ago</time>`;
}
