import { checkScore } from "../core/pack/controls.js";
import type { DriftEntry } from "../core/pack/digest.js";
import type { CheckEvidence, ValidationReport } from "../pack/validate.js";
import type { VerifyReport } from "../pack/verify.js";
import { renderTable } from "./table.js";

function cell(check: CheckEvidence | undefined): string {
  if (check === undefined) return "-";
  const mean = check.seconds.reduce((a, b) => a + b, 0) / Math.max(1, check.seconds.length);
  return `${checkScore(check.expect, check.observed)} ${mean.toFixed(2)}s`;
}

/** The per-task table of `validate`: each control's k/k and mean seconds, then what is wrong. */
export function renderValidation(report: ValidationReport): string {
  const rows = report.tasks.map((t) => [
    t.task_id,
    t.stratum,
    t.role,
    cell(t.checks.find((c) => c.name === "gold")),
    cell(t.checks.find((c) => c.name === "empty")),
    t.status,
  ]);
  const out = [renderTable(["task", "stratum", "role", "gold", "empty", "status"], rows), ""];
  for (const t of report.tasks) {
    for (const c of t.checks.filter((c) => c.status !== "green")) {
      const what = c.status === "flaky" ? "repeats disagree" : c.status === "harness" ? "the oracle could not start" : `expected ${c.expect}`;
      out.push(`${t.task_id}: control "${c.name}" is ${c.status}: ${what}, observed ${c.observed.join(",")}`);
      if (c.log_tail) out.push(indent(c.log_tail));
    }
    for (const leak of t.leaks) {
      const how = leak.how === "verbatim" ? "appears verbatim" : `shares ${leak.shared.join(", ")}`;
      out.push(`${t.task_id}: ${leak.field} overlaps denylist line "${leak.line}" (${how})`);
    }
    if (t.visible !== undefined) out.push(`${t.task_id}: visible tests: gold ${t.visible.gold ?? "-"}, empty ${t.visible.empty}: ${t.visible.note}`);
    if (t.hidden_overlap.length > 0) {
      out.push(`${t.task_id}: note: hidden/ replaces files the agent can see: ${t.hidden_overlap.join(", ")}`);
    }
  }
  const bad = report.tasks.filter((t) => t.status !== "green");
  out.push(
    bad.length === 0
      ? `controls green: ${report.tasks.length} tasks, ${report.oracle_repeats} repeats each, ${report.isolation} isolation; leak check ${report.leak_check}`
      : `controls red: ${bad.map((t) => `${t.task_id} (${t.status})`).join(", ")}`,
  );
  return out.join("\n");
}

const ROLE_NAMES: Record<DriftEntry["role"], string> = {
  card: "card",
  lock: "lock",
  denylist: "denylist",
  task_file: "task file",
  prompt: "prompt",
  repo: "starting repo",
  hidden: "hidden test",
  gold: "gold",
  other: "other",
};

export function renderVerify(report: VerifyReport): string {
  if (report.status === "ok") return `pack matches its lock: ${report.files} files, pack ${report.pack_hash}`;
  const lines = report.drift.map((d) => `${d.change.padEnd(7)}  ${ROLE_NAMES[d.role].padEnd(13)}  ${d.path}`);
  return [
    `pack drifted from its lock: ${report.drift.length} file(s) differ (locked ${report.locked_pack_hash.slice(0, 12)}, now ${report.pack_hash.slice(0, 12)})`,
    ...lines,
  ].join("\n");
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n");
}
