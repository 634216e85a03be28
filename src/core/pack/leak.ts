/**
 * Leak check of a task's public text against the card's denylist: a denylist line matches
 * when it appears verbatim (case-insensitive) or shares at least `minSharedWords` distinct
 * words longer than three letters with the text.
 */

export interface LeakHit {
  line: string;
  field: "title" | "prompt";
  how: "verbatim" | "shared_words";
  shared: string[];
}

export function words(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length > 3),
  );
}

export function findLeaks(
  texts: { title: string; prompt: string },
  denylist: readonly string[],
  options: { minSharedWords?: number } = {},
): LeakHit[] {
  const minShared = options.minSharedWords ?? 4;
  const hits: LeakHit[] = [];
  for (const field of ["title", "prompt"] as const) {
    const text = texts[field];
    const lower = text.toLowerCase();
    const textWords = words(text);
    for (const line of denylist) {
      if (lower.includes(line.toLowerCase())) {
        hits.push({ line, field, how: "verbatim", shared: [] });
        continue;
      }
      const shared = [...words(line)].filter((w) => textWords.has(w)).sort();
      if (shared.length >= minShared) hits.push({ line, field, how: "shared_words", shared });
    }
  }
  return hits;
}
