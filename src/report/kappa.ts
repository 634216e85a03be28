import { fmt, type Agreement, type AgreementReport } from "../core/agreement/report.js";
import { renderTable } from "./table.js";

function interval(a: Agreement): string {
  return a.interval === null ? "-" : `[${fmt(a.interval[0])}, ${fmt(a.interval[1])}] (${a.interval_method})`;
}

function rows(report: AgreementReport): string[][] {
  const entries: [string, Agreement][] = [["overall", report.overall], ...Object.entries(report.strata)];
  return entries.map(([name, a]) => [
    name,
    String(a.cohen?.n ?? a.multi?.n ?? 0),
    fmt(a.value),
    interval(a),
    a.cohen === undefined ? "-" : fmt(a.cohen.observed_agreement),
    a.cohen === undefined ? "-" : fmt(a.cohen.pabak),
    a.band ?? "-",
  ]);
}

const HEADER = ["", "n", "value", "interval", "p_o", "PABAK", "Landis-Koch band"];

/** Terminal: status and gate first, then the table, then detail and warnings. */
export function renderKappa(report: AgreementReport): string {
  const out: string[] = [];
  out.push(`status: ${report.status}${report.reason === null ? "" : ` (${report.reason})`}`);
  if (report.gate !== null) {
    out.push(`gate: ${report.overall.statistic} ${report.gate.on} ${fmt(report.gate.value)} ${report.gate.passed ? ">=" : "<"} floor ${report.gate.floor}`);
  }
  out.push(`graders: ${report.graders.join(", ")}; ${report.items} item(s); categories: ${report.categories.join(", ")}`);
  out.push(`statistic: ${report.overall.statistic}`, "");
  out.push(renderTable(HEADER, rows(report)), "");
  const c = report.overall.cohen;
  if (c !== undefined) {
    out.push(
      `Cohen: kappa ${fmt(c.kappa)}, SE ${fmt(c.se)}, p_o ${fmt(c.observed_agreement)}, p_e ${fmt(c.chance_agreement)}, PABAK ${fmt(c.pabak)}` +
        (c.prevalence_index === null ? "" : `, prevalence index ${fmt(c.prevalence_index)}, bias index ${fmt(c.bias_index)}`),
    );
    for (const [who, marg] of Object.entries(c.marginals)) {
      out.push(`  marginals ${who === "A" ? report.graders[0] : report.graders[1]}: ${Object.entries(marg).map(([k, v]) => `${k} ${v.toFixed(3)}`).join(", ")}`);
    }
  }
  const m = report.overall.multi;
  if (m !== undefined) {
    out.push(`Fleiss' kappa: ${m.fleiss_kappa === null ? (m.fleiss_note ?? "undefined") : fmt(m.fleiss_kappa)}`);
    out.push(`Krippendorff's alpha: ${Object.entries(m.alpha).map(([level, v]) => `${level} ${fmt(v ?? null)}`).join(", ")}`);
  }
  if (report.overall.bootstrap !== undefined) {
    const b = report.overall.bootstrap;
    out.push(`bootstrap: ${b.resamples} resamples, seed ${b.seed}, ${b.undefined_resamples} undefined`);
  }
  const missing = Object.entries(report.missing);
  if (missing.length > 0) {
    out.push(`missing labels: ${missing.slice(0, 20).map(([id, who]) => `${id} (${who.join(", ")})`).join("; ")}${missing.length > 20 ? `; and ${missing.length - 20} more` : ""}`);
  }
  for (const w of report.warnings) out.push(`warning: ${w}`);
  if (report.overall.band !== null) out.push(`band: ${report.overall.band}, after ${report.band_citation}`);
  return out.join("\n");
}

export function renderKappaMarkdown(report: AgreementReport): string {
  const md = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  const out = [
    `**Grader agreement: ${report.status}**${report.reason === null ? "" : `: ${report.reason}`}`,
    "",
    `Graders ${report.graders.join(", ")}; ${report.items} items; ${report.overall.statistic}.`,
    "",
    md(HEADER.map((h) => (h === "" ? "stratum" : h))),
    md(HEADER.map(() => "---")),
    ...rows(report).map(md),
    "",
    ...report.warnings.map((w) => `- warning: ${w}`),
    "",
    `Bands after ${report.band_citation}`,
  ];
  return out.join("\n");
}
