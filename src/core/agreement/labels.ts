import type { Issue, Result } from "../common/errors.js";

/** One grader's label for one item, with the line it came from. */
export interface LabelRow {
  id: string;
  label: string;
  stratum?: string;
  line: number;
}

/**
 * Parses a label file: JSONL (`{"id": ..., "label": ..., "stratum"?: ...}`) or CSV
 * (`id,label[,stratum]`, optional header). Ids and labels may be strings or numbers; numbers
 * are read as their decimal text. Every bad line is reported; a repeated id is an error.
 */
export function parseLabels(text: string, file: string, format: "jsonl" | "csv"): Result<LabelRow[]> {
  const issues: Issue[] = [];
  const rows: LabelRow[] = [];
  const seen = new Map<string, number>();
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === "") return;
    const parsed = format === "jsonl" ? jsonRow(raw) : csvRow(raw, line === 1);
    if (parsed === "header") return;
    if ("error" in parsed) {
      issues.push({ code: "bad_label_row", file, line, path: parsed.field, message: parsed.error });
      return;
    }
    const first = seen.get(parsed.id);
    if (first !== undefined) {
      issues.push({ code: "duplicate_id", file, line, path: "id", message: `id "${parsed.id}" was already labelled on line ${first}` });
      return;
    }
    seen.set(parsed.id, line);
    rows.push({ ...parsed, line });
  });
  if (rows.length === 0 && issues.length === 0) {
    issues.push({ code: "no_labels", file, path: "", message: "the file holds no labels" });
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: rows };
}

type Parsed = { id: string; label: string; stratum?: string } | { error: string; field: string };

function jsonRow(raw: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { error: `not JSON: ${(error as Error).message}`, field: "" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { error: "expected a JSON object", field: "" };
  const record = value as Record<string, unknown>;
  const id = scalar(record.id);
  if (id === undefined) return { error: `expected a string or number, found ${describe(record.id)}`, field: "id" };
  const label = scalar(record.label);
  if (label === undefined) return { error: `expected a string or number, found ${describe(record.label)}`, field: "label" };
  if (record.stratum === undefined || record.stratum === null) return { id, label };
  const stratum = scalar(record.stratum);
  if (stratum === undefined) return { error: `expected a string, found ${describe(record.stratum)}`, field: "stratum" };
  return { id, label, stratum };
}

function csvRow(raw: string, first: boolean): Parsed | "header" {
  const cells = splitCsv(raw);
  if (cells === undefined) return { error: "unbalanced quotes", field: "" };
  const trimmed = cells.map((c) => c.trim());
  if (first && trimmed[0] === "id" && trimmed[1] === "label") return "header";
  if (trimmed.length < 2 || trimmed.length > 3) return { error: `expected id,label[,stratum], found ${trimmed.length} field(s)`, field: "" };
  const [id, label, stratum] = trimmed as [string, string, string | undefined];
  if (id === "") return { error: "empty id", field: "id" };
  if (label === "") return { error: "empty label", field: "label" };
  return stratum === undefined || stratum === "" ? { id, label } : { id, label, stratum };
}

function splitCsv(raw: string): string[] | undefined {
  const cells: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i];
    if (quoted) {
      if (ch === '"' && raw[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      cells.push(cell);
      cell = "";
    } else cell += ch;
  }
  if (quoted) return undefined;
  cells.push(cell);
  return cells;
}

function scalar(value: unknown): string | undefined {
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  return JSON.stringify(value);
}
