/**
 * The word a typo most likely meant ("Every command gets an answer", issue 43): `/service aprove` is answered with
 * "did you mean `approve`?". Distance is the optimal string alignment distance (insertions, deletions, substitutions
 * and swaps of two neighbours each cost one), case-insensitive. A suggestion is made only when one candidate is
 * clearly nearest: within a third of the word's length (at least one edit, at most two), and no other candidate as
 * near. Pure.
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (__, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidate `word` most likely meant, or undefined when none is near enough or two are equally near. */
export function nearestWord(word: string, candidates: readonly string[]): string | undefined {
  const typed = word.toLowerCase();
  // Words longer than any verb by far are sentences, not typos; measuring them costs time for nothing.
  if (typed.length === 0 || typed.length > 40) return undefined;
  const allowed = Math.min(2, Math.max(1, Math.floor(typed.length / 3)));
  const ranked = candidates
    .map((candidate) => ({ candidate, distance: editDistance(typed, candidate.toLowerCase()) }))
    .filter((entry) => entry.distance <= allowed)
    .sort((x, y) => x.distance - y.distance);
  if (ranked.length === 0 || (ranked.length > 1 && ranked[1]!.distance === ranked[0]!.distance)) return undefined;
  return ranked[0]!.candidate;
}
