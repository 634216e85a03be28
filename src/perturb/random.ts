/** A different order of the items when there is one (seeded): a perturbation that changes nothing proves nothing. */
export function permute<T>(items: readonly T[], rng: () => number): T[] {
  if (items.length < 2) return [...items];
  for (let attempt = 0; attempt < 10; attempt++) {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    if (out.some((x, i) => x !== items[i])) return out;
  }
  return [...items].reverse();
}
