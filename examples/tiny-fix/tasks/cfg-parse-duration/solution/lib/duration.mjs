const UNITS = { h: 3600, m: 60, s: 1 };

export function parseDuration(text) {
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)([hms])/g)) {
    total += Number(amount) * (UNITS[unit] ?? 0);
  }
  return total;
}
