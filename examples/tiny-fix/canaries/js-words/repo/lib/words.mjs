export function countWords(text) {
  return text.split(" ").length;
}
