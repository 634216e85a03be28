/**
 * Line diff (Myers' O(ND) greedy algorithm) and unified-diff text. Pure.
 */

export type Edit = { op: "keep" | "add" | "del"; line: string };

export function diffLines(a: readonly string[], b: readonly string[]): Edit[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const v = new Int32Array(2 * max + 2);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[max + k - 1]! < v[max + k + 1]!) ? v[max + k + 1]! : v[max + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[max + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
  }
  // Walk the trace back from (n, m).
  const edits: Edit[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && vd[max + k - 1]! < vd[max + k + 1]!) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : vd[max + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      edits.push({ op: "keep", line: a[x - 1]! });
      x--;
      y--;
    }
    if (d > 0) {
      if (x === prevX) edits.push({ op: "add", line: b[y - 1]! });
      else edits.push({ op: "del", line: a[x - 1]! });
      x = prevX;
      y = prevY;
    }
  }
  return edits.reverse();
}

/** Splits text into lines, keeping track of a missing final newline. */
export function toLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

export interface FileDiff {
  added: number;
  removed: number;
  text: string;
}

/** One file's unified diff with `context` lines around each change; `null` side is /dev/null. */
export function unifiedDiff(path: string, before: string | null, after: string | null, context = 3): FileDiff {
  const edits = diffLines(toLines(before ?? ""), toLines(after ?? ""));
  const added = edits.filter((e) => e.op === "add").length;
  const removed = edits.filter((e) => e.op === "del").length;
  const header = `--- ${before === null ? "/dev/null" : `a/${path}`}\n+++ ${after === null ? "/dev/null" : `b/${path}`}\n`;
  const hunks: string[] = [];
  let i = 0;
  let aLine = 1;
  let bLine = 1;
  // Positions of every edit in both files.
  const pos = edits.map((e) => {
    const p = { a: aLine, b: bLine };
    if (e.op !== "add") aLine++;
    if (e.op !== "del") bLine++;
    return p;
  });
  while (i < edits.length) {
    if (edits[i]!.op === "keep") {
      i++;
      continue;
    }
    let start = Math.max(0, i - context);
    let end = i;
    // Extend while the next change is within 2×context of kept lines.
    for (;;) {
      while (end < edits.length && edits[end]!.op !== "keep") end++;
      let gap = end;
      while (gap < edits.length && edits[gap]!.op === "keep" && gap - end < 2 * context) gap++;
      if (gap < edits.length && edits[gap]!.op !== "keep") end = gap;
      else {
        end = Math.min(edits.length, end + context);
        break;
      }
    }
    const slice = edits.slice(start, end);
    const aCount = slice.filter((e) => e.op !== "add").length;
    const bCount = slice.filter((e) => e.op !== "del").length;
    const aStart = aCount === 0 ? pos[start]!.a - 1 : pos[start]!.a;
    const bStart = bCount === 0 ? pos[start]!.b - 1 : pos[start]!.b;
    hunks.push(
      `@@ -${aStart},${aCount} +${bStart},${bCount} @@\n` +
        slice.map((e) => `${e.op === "keep" ? " " : e.op === "add" ? "+" : "-"}${e.line}\n`).join(""),
    );
    i = end;
    start = end;
  }
  return { added, removed, text: hunks.length === 0 ? "" : header + hunks.join("") };
}
