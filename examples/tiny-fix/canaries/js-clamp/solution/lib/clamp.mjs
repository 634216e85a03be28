/** x limited to the range [low, high]. */
export function clamp(x, low, high) {
  return Math.min(high, Math.max(low, x));
}
