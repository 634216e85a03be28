/**
 * Fleiss' kappa from a subjects × categories table of counts, every subject rated by the same
 * number of graders (Fleiss 1971). null when undefined (chance agreement is 1).
 */
export function fleissKappa(counts: readonly (readonly number[])[]): number | null {
  const subjects = counts.length;
  if (subjects === 0) throw new RangeError("Cannot compute Fleiss' kappa: no subjects");
  const raters = counts[0]!.reduce((a, b) => a + b, 0);
  if (raters < 2) throw new RangeError("Cannot compute Fleiss' kappa: fewer than two ratings per subject");
  const k = counts[0]!.length;
  const totals = new Array<number>(k).fill(0);
  let pBar = 0;
  for (const row of counts) {
    const m = row.reduce((a, b) => a + b, 0);
    if (m !== raters) throw new RangeError("Cannot compute Fleiss' kappa: subjects have different numbers of ratings");
    let squares = 0;
    row.forEach((x, j) => {
      squares += x * x;
      totals[j]! += x;
    });
    pBar += (squares - raters) / (raters * (raters - 1));
  }
  pBar /= subjects;
  const pe = totals.reduce((acc, t) => acc + (t / (subjects * raters)) ** 2, 0);
  return 1 - pe > 1e-12 ? (pBar - pe) / (1 - pe) : null;
}
