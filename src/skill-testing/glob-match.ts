/**
 * A glob as a regular expression over `/`-separated relative paths: `*` and `?` stay within one path segment, `**`
 * spans segments (`**\/x.md` also matches `x.md`), `{a,b}` is a choice. A pattern without `/` matches the file name
 * in any folder, as `.gitignore` patterns do.
 */
export function globToRegExp(pattern: string): RegExp {
  const anchored = pattern.includes('/') ? pattern.replace(/^\/+/, '') : `**/${pattern}`;
  let source = '';
  for (let i = 0; i < anchored.length; i += 1) {
    const char = anchored[i]!;
    if (char === '*' && anchored[i + 1] === '*') {
      const slash = anchored[i + 2] === '/';
      source += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '{') {
      const end = anchored.indexOf('}', i);
      if (end < 0) source += '\\{';
      else {
        source += `(?:${anchored.slice(i + 1, end).split(',').map(escape).join('|')})`;
        i = end;
      }
    } else source += escape(char);
  }
  return new RegExp(`^${source}$`);
}

function escape(text: string): string {
  return text.replace(/[.+^${}()|[\]\\]/g, '\\$&');
}

export function matchesAnyGlob(path: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => globToRegExp(pattern).test(path));
}
