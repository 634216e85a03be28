/** An id as a fixed-width string. */
export function padId(n) {
  return String(n).padStart(4, " ");
}
