/**
 * The closest of some names to what was typed, for "did you mean" in a
 * usage error: by edit distance (insertions, deletions, substitutions),
 * only when close enough to be a slip rather than another word.
 */

/** Levenshtein distance between two strings. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        substitution,
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * The name of `names` closest to `typed`, comparing with each name whole and
 * with its part after the last dot (so `documents_availble` finds
 * `retrieval_request.documents_available`); undefined when none is within a
 * third of its length (at least 2 edits).
 */
export function closestName(typed: string, names: readonly string[]): string | undefined {
  const text = typed.trim().toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const tail = name.slice(name.lastIndexOf(".") + 1);
    const distance = Math.min(editDistance(text, name), editDistance(text, tail));
    const limit = Math.max(2, Math.floor(tail.length / 3));
    if (distance <= limit && (best === undefined || distance < best.distance)) {
      best = { name, distance };
    }
  }
  return best?.name;
}
