/** A saved unified diff as a viewer shows it: per file, lines added and removed, binary noted. */
export interface DiffFile {
  path: string;
  added: number;
  removed: number;
  binary: boolean;
}

export interface DiffView {
  files: DiffFile[];
  /** The start of the patch, at most `cap` characters, cut at a line end. */
  text: string;
  /** Why the text is shorter than the patch, or null when it is whole. */
  truncated: string | null;
}

/**
 * Reads every file header and +/- line of a patch (so the summary covers all of it) and keeps
 * only its first `cap` characters for display. The saved diff.patch itself stays complete.
 */
export function summarizeDiff(patch: string, cap: number): DiffView {
  const files: DiffFile[] = [];
  let current: DiffFile | null = null;
  let before = "";
  for (const line of patch.split("\n")) {
    const binary = /^Binary files (?:a\/(.+?)|\/dev\/null) and (?:b\/(.+?)|\/dev\/null) differ$/.exec(line);
    if (binary !== null) {
      files.push({ path: binary[2] ?? binary[1] ?? "?", added: 0, removed: 0, binary: true });
      current = null;
    } else if (line.startsWith("+++ ")) {
      const after = line.slice(4).replace(/^b\//, "");
      // A deleted file is named by its "---" line.
      current = { path: after === "/dev/null" ? before : after, added: 0, removed: 0, binary: false };
      files.push(current);
    } else if (line.startsWith("--- ")) {
      before = line.slice(4).replace(/^a\//, "");
      current = null;
    } else if (current !== null && line.startsWith("+")) current.added++;
    else if (current !== null && line.startsWith("-")) current.removed++;
  }
  if (patch.length <= cap) return { files, text: patch, truncated: null };
  const end = patch.lastIndexOf("\n", cap);
  const text = patch.slice(0, end > 0 ? end + 1 : cap);
  return { files, text, truncated: `showing the first ${text.length} of ${patch.length} characters; every file is listed above, and the run's diff.patch is complete` };
}
