import { relative } from "node:path/posix";
import type { Report, StratumSummary } from "../core/report/report-model.js";
import { STRATA_HEADER, stratumCells } from "./report-text.js";

/** One self-contained HTML file: gates, a forest plot (SVG), outcomes, per-task links. */

const esc = (s: string) => s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

export function forestPlot(rows: readonly { label: string; estimate: number | null; interval: [number, number] | null }[], options: { min: number; max: number; title: string }): string {
  const width = 640;
  const left = 150;
  const right = 70;
  const rowH = 28;
  const height = rowH * rows.length + 50;
  const x = (v: number) => left + ((v - options.min) / (options.max - options.min)) * (width - left - right);
  const ticks = Array.from({ length: 5 }, (_, i) => options.min + ((options.max - options.min) * i) / 4);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${esc(options.title)}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" class="forest">`,
    `<title>${esc(options.title)}</title>`,
    ...ticks.map((t) => `<line x1="${x(t)}" x2="${x(t)}" y1="10" y2="${height - 30}" stroke="#ddd"/><text x="${x(t)}" y="${height - 12}" font-size="11" text-anchor="middle">${t.toFixed(2)}</text>`),
  ];
  if (options.min < 0 && options.max > 0) parts.push(`<line x1="${x(0)}" x2="${x(0)}" y1="10" y2="${height - 30}" stroke="#888" stroke-dasharray="4 3"/>`);
  rows.forEach((r, i) => {
    const y = 25 + i * rowH;
    parts.push(`<text x="${left - 10}" y="${y + 4}" font-size="12" text-anchor="end">${esc(r.label)}</text>`);
    if (r.interval !== null) {
      parts.push(`<line class="ci" x1="${x(r.interval[0])}" x2="${x(r.interval[1])}" y1="${y}" y2="${y}" stroke="#1f4e79" stroke-width="2"/>`);
    }
    if (r.estimate !== null) {
      parts.push(`<circle class="estimate" cx="${x(r.estimate)}" cy="${y}" r="5" fill="#1f4e79"/>`);
      parts.push(`<text x="${width - right + 8}" y="${y + 4}" font-size="11">${r.estimate.toFixed(2)}</text>`);
    }
  });
  parts.push("</svg>");
  return parts.join("");
}

export const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:2rem;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}
.OK{color:#116611}.INVALID,.SKIP{color:#a11}.pass{color:#116611}.fail{color:#a11}
blockquote{border-left:4px solid #1f4e79;margin:1rem 0;padding:.5rem 1rem;background:#f4f7fb}`;

/** `linkBase`: the run folder as seen from where the HTML file is written. */
export function renderReportHtml(report: Report, options: { linkBase: string }): string {
  const id = report.identity;
  const gateRows = report.gates
    .map((g) => `<tr class="gate ${g.status}"><td>${esc(g.name)}</td><td class="${g.status}">${g.status}</td><td>${esc(g.reason)}</td></tr>`)
    .join("");
  const plotRows: { label: string; estimate: number | null; interval: [number, number] | null }[] = report.strata.map((s: StratumSummary) => ({ label: s.id, estimate: s.scoreable_rate, interval: s.interval }));
  if (report.overall_withheld === null) plotRows.push({ label: "overall", estimate: report.overall.scoreable_rate, interval: report.overall.interval });
  const outcomes = Object.entries(report.overall.counts).map(([o, n]) => `<tr><td>${o}</td><td>${n}</td></tr>`).join("");
  const link = (path: string | undefined, text: string) => (path === undefined ? "" : `<a href="${esc(relative(".", `${options.linkBase}/${path}`))}">${text}</a>`);
  const tasks = report.tasks
    .map((t) =>
      t.attempts
        .map(
          (a) =>
            `<tr class="task"><td>${esc(t.task_id)}</td><td>${esc(t.stratum)}</td><td>${t.role}</td><td>${a.replay}</td><td class="${a.outcome === "pass" ? "pass" : "fail"}">${a.outcome}</td><td>${esc(a.reason)}</td><td>${a.wall_s.toFixed(2)}</td>` +
            `<td>${link(a.artifacts.diff, "diff")} ${link(a.artifacts.agent_stdout, "agent log")} ${link(a.artifacts.oracle_stdout, "oracle log")}</td></tr>`,
        )
        .join(""),
    )
    .join("");
  const score =
    report.status === "OK"
      ? `<h2>Strata</h2>${forestPlot(plotRows, { min: 0, max: 1, title: "scoreable pass rate by stratum with intervals" })}
<table class="strata"><tr>${STRATA_HEADER.map((h) => `<th>${h}</th>`).join("")}</tr>${report.strata.map((s) => `<tr>${stratumCells(s).map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("")}</table>
<p>${report.overall_withheld === null ? `Overall: ${esc(stratumCells(report.overall).slice(1, 5).join(", "))}` : `Overall withheld: ${esc(report.overall_withheld)}`}</p>
<blockquote class="sentence">${esc(report.sentence ?? "")}</blockquote>`
      : `<p class="refusal"><strong>No score.</strong> ${esc(report.reasons.join("; "))}</p>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>benchcard report: ${esc(id.card)} ${esc(id.version)}</title><style>${STYLE}</style></head><body>
<h1>${esc(id.card)} ${esc(id.version)}: <span class="status ${report.status}">${report.status}</span></h1>
<p>Run ${esc(id.run_id)}, agent ${esc(id.agent_id)} (${esc(id.agent_fingerprint.slice(0, 12))}…), pack ${esc(id.pack_hash.slice(0, 12))}…, ${esc(id.isolation)} isolation${id.hidden_guaranteed_secret ? "" : " (hidden tests not guaranteed secret)"}, ${id.replays} replay(s), seed ${id.seed}.</p>
<h2>Gates</h2><table class="gates"><tr><th>gate</th><th>status</th><th>reason</th></tr>${gateRows}</table>
${score}
<h2>Outcomes</h2><table class="outcomes"><tr><th>outcome</th><th>tasks</th></tr>${outcomes}</table>
<h2>Tasks</h2><table class="tasks"><tr><th>task</th><th>stratum</th><th>role</th><th>replay</th><th>outcome</th><th>reason</th><th>seconds</th><th>artifacts</th></tr>${tasks}</table>
</body></html>
`;
}
