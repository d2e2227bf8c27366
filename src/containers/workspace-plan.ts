import { resolveLink, type Tree, type TreeEntry } from './link-resolution';
import { displayPath } from './workspace-names';

/**
 * What the host tree will hold once the workspace is copied into it, decided before anything is written (issue 41).
 * Links are judged on that final tree, by where they resolve (link-resolution.ts), not by their text:
 *
 * - a link the agent added or changed (a target text the base tree did not have at that path) that leaves the
 *   repository is refused: not written, the host keeps what it had at that path;
 * - a link of the base tree left as it was is the repository's own: kept, also when it leaves the repository (the
 *   project committed it, and pushing it again changes nothing);
 * - but when the agent's changes make such a link leave the repository although it did not before (a new link on
 *   its way, a link on its way replaced by a folder), the workspace is blocked: the host cannot tell which of the
 *   agent's changes to leave out.
 *
 * Refusing a link changes the tree that other links resolve in (the host's entry comes back at that path), so the
 * judgement runs again until nothing more is refused. Pure.
 */
export type WorkspaceEntry = TreeEntry | { kind: 'other'; reason: string };

export interface HostTreePlan {
  /** The host tree after the copy. */
  tree: Map<string, TreeEntry>;
  /** Workspace links the host does not write, with the reason. */
  refusedLinks: Map<string, string>;
  /** Set when the workspace cannot be taken at all. */
  blocked?: { path: string; reason: string };
}

function childIndex(tree: Tree): Map<string, string[]> {
  const children = new Map<string, string[]>();
  for (const path of tree.keys()) {
    const slash = path.lastIndexOf('/');
    const parent = slash < 0 ? '' : path.slice(0, slash);
    const list = children.get(parent);
    if (list) list.push(path);
    else children.set(parent, [path]);
  }
  return children;
}

/** The workspace's entries, with the base tree's entry (and what lies under it) wherever the host keeps its own. */
function compose(workspace: ReadonlyMap<string, WorkspaceEntry>, base: Tree, baseChildren: Map<string, string[]>, keep: ReadonlySet<string>): Map<string, TreeEntry> {
  const tree = new Map<string, TreeEntry>();
  const keepBase = (path: string) => {
    const entry = base.get(path);
    if (!entry) return;
    tree.set(path, entry);
    for (const child of baseChildren.get(path) ?? []) keepBase(child);
  };
  for (const [path, entry] of workspace) {
    if (keep.has(path) || entry.kind === 'other') keepBase(path);
    else tree.set(path, entry);
  }
  return tree;
}

const sameLink = (a: WorkspaceEntry | undefined, b: WorkspaceEntry | undefined) => a?.kind === 'link' && b?.kind === 'link' && a.target === b.target;

export function planHostTree(workspace: ReadonlyMap<string, WorkspaceEntry>, base: Tree): HostTreePlan {
  const baseChildren = childIndex(base);
  const refusedLinks = new Map<string, string>();
  let tree = compose(workspace, base, baseChildren, new Set());
  const fromAgent = (path: string, entry: TreeEntry) => entry.kind === 'link' && !refusedLinks.has(path) && sameLink(workspace.get(path), entry) && !sameLink(base.get(path), entry);

  for (;;) {
    let refusedNow = 0;
    for (const [path, entry] of tree) {
      if (!fromAgent(path, entry)) continue;
      const resolution = resolveLink(tree, path);
      if (resolution.inside) continue;
      refusedLinks.set(path, `a symbolic link to ${displayPath(entry.kind === 'link' ? entry.target : '')}, which leaves the repository: ${resolution.reason}`);
      refusedNow += 1;
    }
    if (refusedNow === 0) break;
    tree = compose(workspace, base, baseChildren, new Set(refusedLinks.keys()));
  }

  for (const [path, entry] of tree) {
    if (entry.kind !== 'link' || fromAgent(path, entry)) continue;
    const now = resolveLink(tree, path);
    if (now.inside || !resolveLink(base, path).inside) continue;
    const through = now.via.slice(1).filter((step) => !sameLink(base.get(step), tree.get(step)));
    return {
      tree, refusedLinks,
      blocked: {
        path,
        reason: `the repository's symbolic link ${displayPath(path)} stays inside the repository on the base branch, but the agent's changes${through.length > 0 ? ` (${through.slice(0, 3).map((step) => displayPath(step)).join(', ')})` : ' to the folders on its way'} make it leave: ${now.reason}`,
      },
    };
  }
  return { tree, refusedLinks };
}
