import assert from "node:assert/strict";
import { test } from "node:test";
import type { Report, StratumSummary } from "../core/report/report-model.js";
import { renderReportMarkdown } from "./report-text.js";

const stratum = (id: string, pass: number, n: number): StratumSummary =>
  ({
    id,
    counts: { pass, fail: n - pass, timeout: 0, truncated: 0, invalid: 0, infra: 0, harness: 0, void: 0 },
    scored: n,
    scheduled: n,
    scoreable_rate: pass / n,
    strict_rate: pass / n,
    interval: [0.2, 0.9],
    median_seconds: 1,
    tokens_per_pass: null,
  }) as unknown as StratumSummary;

test("markdown: the overall row is the table's last row (bold), so GitHub renders one table", () => {
  const report = {
    status: "OK",
    gates: [{ name: "card_complete", status: "pass", severity: "INVALID", reason: "ok" }],
    identity: { card: "c", version: "1" },
    strata: [stratum("a", 5, 10), stratum("b", 6, 10)],
    overall: stratum("overall", 11, 20),
    overall_withheld: null,
    sentence: "On c 1 ...",
    reasons: [],
  } as unknown as Report;
  const lines = renderReportMarkdown(report).split("\n");
  const table = lines.slice(lines.findIndex((l) => l.startsWith("| stratum")));
  const rows = table.slice(0, table.findIndex((l) => !l.startsWith("|")));
  assert.equal(rows.length, 5, "header, rule, two strata, overall");
  assert.match(rows[4]!, /^\| \*\*overall\*\* \| \*\*11\/20\*\* \|/);
  const withheld = renderReportMarkdown({ ...report, overall_withheld: "strata disagree | badly" } as Report);
  assert.match(withheld, /\n\nOverall withheld: strata disagree \\\| badly/);
});
