import type { Comparison, PairedSummary } from "../core/compare/model.js";
import { forestPlot, STYLE } from "./report-html.js";
import { renderTable } from "./table.js";

const f = (x: number | null | undefined, d = 3) => (x === null || x === undefined ? "-" : x.toFixed(d));
const header = (power: number) => ["stratum", "n", "both pass", "A only", "B only", "both fail", "void", "A", "B", "A − B", "interval", "McNemar p", "mid-p", `MDD (${Math.round(power * 100)}%)`];

/** A p-value as a reader should see it: "< 0.001", or two significant digits; never "0.000". */
export function formatP(p: number | null | undefined): string {
  if (p === null || p === undefined) return "-";
  if (p < 0.001) return "< 0.001";
  return p >= 0.1 ? p.toFixed(2) : p.toPrecision(2);
}

function cells(s: PairedSummary): string[] {
  const t = s.table;
  return [
    s.id,
    String(s.n),
    String(t.both_pass),
    String(t.a_only),
    String(t.b_only),
    String(t.both_fail),
    String(t.void),
    f(s.rate_a, 2),
    f(s.rate_b, 2),
    f(s.difference),
    s.interval === null ? "-" : `[${f(s.interval[0])}, ${f(s.interval[1])}]`,
    formatP(s.mcnemar?.p),
    formatP(s.mcnemar?.mid_p),
    s.minimum_detectable_difference === null ? "none detectable" : f(s.minimum_detectable_difference),
  ];
}

export function renderComparison(c: Comparison): string {
  const out = [
    `status: ${c.status}`,
    `A: ${c.a.agent_id} (run ${c.a.run_id}, ${c.a.agent_fingerprint.slice(0, 12)}…)   B: ${c.b.agent_id} (run ${c.b.run_id}, ${c.b.agent_fingerprint.slice(0, 12)}…)`,
  ];
  if (c.status !== "OK") {
    out.push(`refused: ${c.reasons.join("; ")}`);
    return out.join("\n");
  }
  out.push("", renderTable(header(c.power), [...c.strata, ...(c.overall ? [c.overall] : [])].map(cells)), "");
  out.push(`intervals: Newcombe paired (method 10), ${Math.round(c.confidence * 100)}%; MDD: smallest difference one stratum's paired test detects at ${Math.round(c.power * 100)}% power for its n and discordance`);
  const rule = c.rule_detectable_difference;
  if (rule !== null) out.push(`the decision rule as a whole detects a difference of ${rule.value === null ? "none in reach" : f(rule.value)} at ${Math.round(rule.power * 100)}% power (${rule.simulations} simulations per step, seed ${rule.seed})`);
  if (c.bootstrap) out.push(`task-clustered bootstrap of A − B: ${c.bootstrap.interval ? `[${f(c.bootstrap.interval[0])}, ${f(c.bootstrap.interval[1])}]` : "-"} (${c.bootstrap.resamples} resamples, seed ${c.bootstrap.seed})`);
  out.push(`tokens per pass: A ${f(c.a.tokens_per_pass, 0)}, B ${f(c.b.tokens_per_pass, 0)}; seconds per pass: A ${f(c.a.seconds_per_pass, 2)}, B ${f(c.b.seconds_per_pass, 2)}`);
  const name = (w: "A" | "B") => (w === "A" ? `A (${c.a.agent_id})` : `B (${c.b.agent_id})`);
  out.push(
    "",
    `rate winner: ${c.rate_winner === null ? "none" : name(c.rate_winner)}`,
    `cost: ${c.cost_winner === null ? "no difference shown" : `${name(c.cost_winner.agent)} cheaper per pass (${c.cost_winner.by.replaceAll("_", " ")})`}`,
    `decision: ${c.decision?.reason ?? "-"}`,
    `environment: ${c.environment}`,
  );
  if (c.human_vs_agent !== undefined) {
    const h = c.human_vs_agent;
    out.push("", `human (${h.human}) against agent, per task: hidden outcome, time to green, steers`);
    for (const t of h.tasks) {
      out.push(`  ${t.task_id}: human ${t.human.outcome}, ${t.human.time_to_green_s ?? "-"} s, ${t.human.steers ?? "unreported"} steer(s); agent ${t.agent.outcome}, ${t.agent.time_to_green_s ?? "-"} s, ${t.agent.steers ?? 0} steer(s)`);
    }
    out.push("", "sentences:");
    for (const s of h.sentences) out.push(`  ${s.allowed ? "allowed" : "REFUSED"}: "${s.sentence}": ${s.reason}`);
  }
  if (c.sentence !== null) out.push("", c.sentence);
  return out.join("\n");
}

export function renderComparisonMarkdown(c: Comparison): string {
  const md = (xs: readonly string[]) => `| ${xs.join(" | ")} |`;
  if (c.status !== "OK") return `**Compare: ${c.status}**: ${c.reasons.join("; ")}`;
  return [
    `**Compare ${c.a.agent_id} (A) vs ${c.b.agent_id} (B): rate winner ${c.rate_winner ?? "none"}${c.cost_winner === null ? "" : `; ${c.cost_winner.agent} cheaper per pass`}**`,
    "",
    md(header(c.power)),
    md(header(c.power).map(() => "---")),
    ...[...c.strata, ...(c.overall ? [c.overall] : [])].map((s) => md(cells(s))),
    "",
    `Decision: ${c.decision?.reason ?? "-"}`,
    "",
    `> ${c.sentence ?? ""}`,
  ].join("\n");
}

export function renderComparisonHtml(c: Comparison): string {
  const esc = (s: string) => s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
  const rows = [...c.strata, ...(c.overall ? [c.overall] : [])];
  const plot = forestPlot(rows.map((s) => ({ label: s.id, estimate: s.difference, interval: s.interval })), { min: -1, max: 1, title: "A minus B pass rate by stratum, paired intervals" });
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>benchcard compare</title><style>${STYLE}</style></head><body>
<h1>Compare: <span class="status ${c.status}">${c.status}</span></h1>
<p>A: ${esc(c.a.agent_id)} (run ${esc(c.a.run_id)}); B: ${esc(c.b.agent_id)} (run ${esc(c.b.run_id)})</p>
${c.status === "OK" ? `<h2>Rate winner: <span class="winner">${c.rate_winner === null ? "none" : `${c.rate_winner} (${esc(c.rate_winner === "A" ? c.a.agent_id : c.b.agent_id)})`}</span></h2><p class="decision">${esc(c.decision?.reason ?? "")}</p><p class="sentence">${esc(c.sentence ?? "")}</p>${plot}
<table class="paired"><tr>${header(c.power).map((h) => `<th>${h}</th>`).join("")}</tr>${rows.map((s) => `<tr>${cells(s).map((x) => `<td>${esc(x)}</td>`).join("")}</tr>`).join("")}</table>` : `<p class="refusal">${esc(c.reasons.join("; "))}</p>`}
</body></html>
`;
}
