/**
 * Edit distance of two words (optimal string alignment: insertions, deletions,
 * substitutions and swaps of two neighbouring letters each cost 1), so that
 * `tokne` is one step from `token`, as a typing slip is.
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known word nearest to `word`, when it is near enough to be what was meant:
 * within a third of the word's length (at least one edit), compared without
 * case. Ties go to the first candidate. Undefined when none is that near, or
 * when `word` is itself a candidate.
 *
 * @example nearestWord('requests_per_minte', ['requests_per_minute', 'concurrency']) // 'requests_per_minute'
 */
export function nearestWord(word: string, candidates: readonly string[]): string | undefined {
  if (candidates.includes(word)) return undefined;
  const limit = Math.max(1, Math.floor(word.length / 3));
  let best: { word: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { word: candidate, distance };
  }
  return best?.word;
}

/** ` (did you mean X?)` when a candidate is near enough to `word` to be what was meant; else ''. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const meant = nearestWord(word, candidates);
  return meant === undefined ? '' : ` (did you mean ${meant}?)`;
}
