export function capitalize(word) {
  return word.toUpperCase();
}
