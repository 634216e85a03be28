import { EMPTY_USAGE, type Usage } from "./ledger-row.js";

/** The longest string from the usage file that reaches a row. */
export const USAGE_STRING_CAP = 200;

/** Text an agent controls, made safe for a row and a terminal: control characters become "?". */
export function cleanText(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, "?");
}

/**
 * Reads the agent's usage JSON. Never throws: a malformed file gives empty usage and a note,
 * and the attempt goes on to its real outcome.
 */
export function parseUsage(text: string | undefined): { usage: Usage; note: string | null } {
  if (text === undefined) return { usage: { ...EMPTY_USAGE }, note: null };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { usage: { ...EMPTY_USAGE }, note: `usage file is not JSON: ${(error as Error).message}` };
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return { usage: { ...EMPTY_USAGE }, note: "usage file is not a JSON object" };
  }
  const record = data as Record<string, unknown>;
  const usage: Usage = { ...EMPTY_USAGE };
  const problems: string[] = [];
  for (const key of ["input_tokens", "output_tokens", "steps", "tool_calls", "cost_usd"] as const) {
    const v = record[key];
    if (v === undefined || v === null) continue;
    if (typeof v === "number" && Number.isFinite(v) && v >= 0) usage[key] = v;
    else problems.push(`${key} is not a non-negative number`);
  }
  for (const key of ["model", "endpoint", "infra_error"] as const) {
    const v = record[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== "string") problems.push(`${key} is not a string`);
    else if (v.length > USAGE_STRING_CAP) problems.push(`${key} is ${v.length} characters, over the cap of ${USAGE_STRING_CAP}`);
    else usage[key] = cleanText(v);
  }
  if (record.truncated !== undefined && record.truncated !== null) {
    if (typeof record.truncated === "boolean") usage.truncated = record.truncated;
    else problems.push("truncated is not a boolean");
  }
  const known = new Set(Object.keys(EMPTY_USAGE));
  const unknown = Object.keys(record).filter((k) => !known.has(k));
  if (unknown.length > 0) problems.push(`unknown field(s) ${cleanText(unknown.slice(0, 5).join(", ")).slice(0, USAGE_STRING_CAP)}`);
  return { usage, note: problems.length === 0 ? null : `usage file: ${problems.join("; ")}` };
}

/** Whether the attempt hit a token or step cap of the envelope, and why. */
export function truncation(
  usage: Usage,
  envelope: { max_output_tokens: number | "unknown"; max_steps: number | "unknown" },
): string | undefined {
  if (usage.truncated === true) return "agent reported it was truncated";
  if (envelope.max_output_tokens !== "unknown" && usage.output_tokens !== null && usage.output_tokens > envelope.max_output_tokens) {
    return `output tokens ${usage.output_tokens} over the envelope's ${envelope.max_output_tokens}`;
  }
  if (envelope.max_steps !== "unknown" && usage.steps !== null && usage.steps > envelope.max_steps) {
    return `steps ${usage.steps} over the envelope's ${envelope.max_steps}`;
  }
  return undefined;
}
