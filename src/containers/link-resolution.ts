import { displayPath, isDotGit } from './workspace-names';

/**
 * Where a symbolic link of a repository tree leads, decided on the tree alone (issue 41). The kernel resolves a link
 * component by component: every link met on the way is replaced by its target, and `..` climbs from where the walk
 * really is, not from where the text says. So `r -> ../..` followed by `esc -> r/../../etc/shadow` reads as harmless
 * text yet opens /etc/shadow in any checkout. This module walks the tree the way the kernel would with
 * RESOLVE_BENEATH: the first step above the repository's root, an absolute target, a step into a `.git` folder (what
 * git keeps in a checkout: configuration, credentials, hooks) or a chain too long to follow (a loop) makes the link
 * leave the repository, wherever the walk would have ended.
 *
 * A component the tree does not hold (or a file in the middle of a path) is taken as a plain folder: the link is then
 * dangling, and its text alone says where it would go once such a folder exists. A dangling link whose rest stays
 * beneath the root is harmless (opening it fails, or lands inside) and is kept; one whose rest climbs out is not.
 */
export type TreeEntry = { kind: 'dir' } | { kind: 'file' } | { kind: 'link'; target: string };

/** Paths relative to the repository's root, `/`-separated, without `.git` and without `.service/`. */
export type Tree = ReadonlyMap<string, TreeEntry>;

/** Linux follows at most 40 links in one lookup; a chain longer than that is a loop to the kernel too. */
export const MAX_LINK_HOPS = 40;
/** Components walked in one resolution, all links included: bounds the work an agent's links can cost the host. */
export const MAX_RESOLUTION_STEPS = 1024;

export type LinkResolution =
  | { inside: true; resolved: string; dangling: boolean; via: string[] }
  | { inside: false; reason: string; via: string[] };

const parts = (text: string) => text.split('/');

/**
 * Resolves the link at `path` in `tree`, following every link on the way (`via` lists them, the link itself
 * first). Pure.
 */
export function resolveLink(tree: Tree, path: string, limits = { hops: MAX_LINK_HOPS, steps: MAX_RESOLUTION_STEPS }): LinkResolution {
  const via: string[] = [];
  const out = (reason: string): LinkResolution => ({ inside: false, reason, via });
  // Where the walk is: the folders from the root, each as its full path, so a step costs no join of the whole path.
  const at: string[] = parts(path).slice(0, -1).map((_, index, all) => all.slice(0, index + 1).join('/'));
  const pending: string[] = [];
  let dangling = false;
  let steps = 0;

  const follow = (linkPath: string): string | undefined => {
    const entry = tree.get(linkPath);
    if (entry?.kind !== 'link') return `${linkPath} is not a symbolic link`;
    via.push(linkPath);
    if (via.length > limits.hops) return `it passes through more than ${limits.hops} symbolic links (a loop)`;
    if (entry.target === '') return `${linkPath} has an empty target`;
    if (entry.target.startsWith('/')) return `${via.length > 1 ? `${linkPath}, on its way, ` : ''}points to the absolute path ${entry.target.slice(0, 200)}`;
    pending.unshift(...parts(entry.target));
    return undefined;
  };

  const first = follow(path);
  if (first) return out(first);
  while (pending.length > 0) {
    if (++steps > limits.steps) return out(`it takes more than ${limits.steps} steps to resolve`);
    const component = pending.shift()!;
    if (component === '' || component === '.') continue;
    if (component === '..') {
      if (at.length === 0) return out(`it climbs above the repository's root${via.length > 1 ? ` through ${via.slice(1).join(', ')}` : ''}`);
      at.pop();
      continue;
    }
    if (isDotGit(component)) return out(`it leads into ${displayPath(component, 40)}, a folder git keeps outside the repository's content`);
    const next = at.length === 0 ? component : `${at[at.length - 1]}/${component}`;
    const entry = tree.get(next);
    if (entry?.kind === 'link') {
      const stop = follow(next);
      if (stop) return out(stop);
      continue;
    }
    // A missing component or a file in the middle: taken as a folder (see the module comment).
    if (entry === undefined || (entry.kind === 'file' && pending.length > 0)) dangling = true;
    at.push(next);
  }
  return { inside: true, resolved: at.length === 0 ? '' : at[at.length - 1]!, dangling, via };
}
