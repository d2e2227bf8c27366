import { describe, expect, it } from 'vitest';
import { escapeHtml, html, trustedHtml } from '../../../src/console/html';
import { pullRequestUrl, safeHttpUrl } from '../../../src/console/safe-links';
import { parsePullRequestRef } from '../../../workflows/vocabulary/pull-request-ref';
import { pullRequestLink } from '../../../src/console/pages/ticket-links';

describe('html', () => {
  it('escapes every interpolated string, keeps nested html and drops null, undefined and false', () => {
    const name = '<b>"x" & \'y\'</b>';
    expect(html`<p title="${name}">${name}${html`<i>${name}</i>`}${null}${undefined}${false}${[name, html`<br>`]}</p>`.text)
      .toBe('<p title="&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;">&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;<i>&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;</i>&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;<br></p>');
    expect(escapeHtml('`')).toBe('&#96;');
    expect(html`${trustedHtml('<style>')}`.text).toBe('<style>');
  });
});

describe('links', () => {
  it('become links only for absolute http(s) addresses', () => {
    expect(safeHttpUrl('https://tracker.example/browse/A-1')).toBe('https://tracker.example/browse/A-1');
    for (const bad of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,x', '//evil.example', '/relative', '', undefined, 'vbscript:x']) expect(safeHttpUrl(bad)).toBeUndefined();
  });

  it('of pull requests follow the host\'s address and refuse what is no pull request ref', () => {
    expect(parsePullRequestRef('group/sub/project!12')).toEqual({ repository: 'group/sub/project', number: 12, host: 'gitlab' });
    expect(pullRequestUrl('acme/app#7', { github: 'https://github.example/' })).toBe('https://github.example/acme/app/pull/7');
    expect(pullRequestUrl('"><img>#1', { github: 'https://github.com' })).toBeUndefined();
    expect(pullRequestUrl('acme/app!3', { github: 'https://github.com' })).toBeUndefined();
    expect(pullRequestLink({ namespace: 'default', gitlabWebUrlOf: (project) => (project === 'fin/pay' ? 'https://git.example/gitlab' : undefined) }, 'fin/pay!3')).toBe('https://git.example/gitlab/fin/pay/-/merge_requests/3');
    expect(pullRequestLink({ namespace: 'default', gitlabWebUrlOf: () => undefined }, 'other/app!3')).toBeUndefined();
  });
});
