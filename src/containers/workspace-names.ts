/**
 * Names and paths the host does not take from a container's workspace (issue 41). Host git refuses to add a path
 * that another file system would read as `.git` (core.protectNTFS and core.protectHFS, both on in HOST_GIT_CONFIG):
 * a refusal there used to surface as a plain error, and a plain error makes Temporal run the hostile agent again. The
 * sync checks every name first, with rules at least as strict as git's `verify_path`, so such a workspace ends the
 * station as `workspace_refused` before anything is written. The bounds on names, paths and depth keep every path
 * the host touches far below PATH_MAX, so no file operation of the sync can fail with ENAMETOOLONG.
 */

/** Code points HFS+ ignores when it compares names (git's list in `utf8.c`, `next_hfs_char`). */
const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/gu;

/**
 * A name as NTFS and HFS+ would compare it with `.git`: ignorable code points dropped, lower case, an alternate data
 * stream (`name:stream`) cut off, trailing dots and spaces dropped (NTFS ignores them).
 */
export function foldedName(name: string): string {
  const lower = name.replace(HFS_IGNORED, '').toLowerCase();
  const colon = lower.indexOf(':');
  return (colon >= 0 ? lower.slice(0, colon) : lower).replace(/[. ]+$/, '');
}

/** Whether a name is `.git` to some file system: `.git.`, `.GIT `, `.g\u200cit`, `.git::$INDEX_ALLOCATION`, `GIT~1`. */
export function isDotGit(name: string): boolean {
  // NTFS takes a backslash as a separator: `a\.git` names a `.git` inside `a` there.
  return name.split('\\').some((piece) => {
    const folded = foldedName(piece);
    return folded === '.git' || /^git~\d+$/.test(folded);
  });
}

/** `.gitmodules` to some file system; git refuses it as a symbolic link (its content would be read through the link). */
function isDotGitmodules(name: string): boolean {
  return name.split('\\').some((piece) => {
    const folded = foldedName(piece);
    return folded === '.gitmodules' || /^(gitmod|gi7eba)~\d+$/.test(folded);
  });
}

export interface PathBounds {
  /** Bytes of one name: Linux file systems take 255. */
  maxNameBytes: number;
  /** Bytes of a path relative to the repository's root, and of a link's target. */
  maxPathBytes: number;
  /** Folders a path may pass through. */
  maxDepth: number;
}

/**
 * 1024 bytes: a work folder of up to about 3000 bytes still leaves every absolute path under Linux's PATH_MAX (4096)
 * (the socket path limit keeps real work folders under 100 bytes). 64 folders deep is more than any source tree the
 * service is meant for needs.
 */
export const DEFAULT_PATH_BOUNDS: PathBounds = { maxNameBytes: 255, maxPathBytes: 1024, maxDepth: 64 };

/**
 * Why the host does not take an entry named `name` at `path` (`depth` folders deep, 1 for the root's entries), or
 * undefined; checked before the entry is looked at, so a path over the bounds is never touched. Pure.
 */
export function refusedName(path: string, name: string, depth: number, bounds: PathBounds = DEFAULT_PATH_BOUNDS): string | undefined {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) return 'it is not a name a repository can hold';
  if (isDotGit(name)) return 'git would take it for .git on Windows or macOS file systems and refuses to commit it';
  if (Buffer.byteLength(name) > bounds.maxNameBytes) return `its name is longer than ${bounds.maxNameBytes} bytes`;
  if (depth > bounds.maxDepth) return `it is more than ${bounds.maxDepth} folders deep`;
  if (Buffer.byteLength(path) > bounds.maxPathBytes) return `its path is longer than ${bounds.maxPathBytes} bytes`;
  return undefined;
}

/** Why a symbolic link may not have this name, or undefined. Pure. */
export function refusedLinkName(name: string): string | undefined {
  return isDotGitmodules(name) ? 'git refuses .gitmodules as a symbolic link' : undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A name as read from the disk, or undefined when it is not UTF-8 (it could not be written back as read). */
export function decodedName(raw: Buffer): string | undefined {
  try {
    return utf8.decode(raw);
  } catch {
    return undefined;
  }
}

/**
 * A path for an operator's eyes: quoted, cut to `max` characters, and with every control, format or separator
 * character (a newline, a zero-width joiner, a trailing no-break space) spelled out, so that `.g\u200cit` does not
 * look like `.git` and a name cannot forge lines of a message.
 */
export function displayPath(path: string, max = 200): string {
  const chars = Array.from(path);
  const shown = chars.slice(0, max).join('').replace(/[\p{C}\p{Z}"\\]/gu, (char) => {
    if (char === ' ') return ' ';
    if (char === '"' || char === '\\') return `\\${char}`;
    return `\\u{${char.codePointAt(0)!.toString(16)}}`;
  });
  return `"${shown}${chars.length > max ? '…' : ''}"`;
}

/** A raw name that is not UTF-8, with its bytes spelled out where they are not printable ASCII. */
export function displayRawName(raw: Buffer, max = 200): string {
  const text = Array.from(raw.subarray(0, max), (byte) => (byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`)).join('');
  return `"${text}${raw.length > max ? '…' : ''}"`;
}
