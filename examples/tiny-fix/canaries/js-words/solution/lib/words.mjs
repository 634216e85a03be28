/** The number of words in a line of text. */
export function countWords(text) {
  return text.split(" ").length;
}
