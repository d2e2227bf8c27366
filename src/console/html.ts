/**
 * HTML built from ticket text that anyone who can write a comment controls: every interpolated value is escaped
 * unless it is already `SafeHtml` (made by this module from escaped parts). There is no way to pass a plain string
 * through unescaped but `trustedHtml`, which only the console's own constants use.
 */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Escapes for text and for double- or single-quoted attribute values alike. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** `html\`<p>${summary}</p>\`` escapes `summary`; nested `html` results and arrays of them are kept as they are. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new SafeHtml(out);
}

/** Markup written by the console itself (styles, the refresh script): never pass text that came from a ticket. */
export function trustedHtml(text: string): SafeHtml {
  return new SafeHtml(text);
}
