export function padId(n) {
  return String(n).padStart(4, " ");
}
