import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import type { Report } from "../core/report/report-model.js";
import { frozenExample, requireTool, runCli, tempDir } from "../testing/helpers.js";

const TASKS = ["py-fix-clamp", "py-fix-median", "py-fix-slugify", "py-fix-chunks", "js-fix-sum", "js-fix-range", "js-fix-unique", "js-fix-capitalize", "ctl-never-green"];

async function oracleRun(t: import("node:test").TestContext): Promise<{ pack: string; runDir: string; dir: string }> {
  const dir = await tempDir(t);
  const pack = await frozenExample(t, { tasks: TASKS, editCard: (c) => c.replace(/strata:\n(  - .*\n)+/, "strata:\n  - { id: py-fix, description: p }\n  - { id: js-fix, description: j }\n  - { id: cfg-parse, description: c }\n") });
  const run = await runCli(["run", pack, "--agent", "oracle", "--out", dir, "--run-id", "o", "--jobs", "2", "--seed", "2"]);
  assert.equal(run.code, 0, run.stderr);
  return { pack, runDir: join(dir, "o"), dir };
}

test("report: OK on an oracle run, JSON with a top-level status, the citeable sentence last", async (t) => {
  const { runDir } = await oracleRun(t);
  const text = await runCli(["report", runDir]);
  assert.equal(text.code, 0, text.stdout + text.stderr);
  assert.match(text.stdout, /^status: OK/);
  const lines = text.stdout.trim().split("\n");
  assert.match(lines[lines.length - 1]!, /^On tiny-fix 1\.0\.0 \(pack [0-9a-f]{12}, split all\), 8 tasks in 2 strata \(py-fix 4, js-fix 4\), agent oracle .* py-fix 4\/4 \[0\.51, 1\.00\], js-fix 4\/4 \[0\.51, 1\.00\]; no overall rate \(strata not pooled\)/);
  const json = JSON.parse((await runCli(["report", runDir, "--json"])).stdout) as Report;
  assert.equal(json.schema, "benchcard.report/1");
  assert.equal(json.status, "OK");
  const md = await runCli(["report", runDir, "--md"]);
  assert.match(md.stdout, /\| py-fix \| 4\/4 \|/);
});

test("report: a drifted pack is SKIP (exit 2); an incomplete ledger INVALID (exit 3), and neither prints a score", async (t) => {
  const { pack, runDir } = await oracleRun(t);
  const ledger = join(runDir, "ledger.jsonl");
  const rows = (await readFile(ledger, "utf8")).trim().split("\n");
  const { writeFile, appendFile } = await import("node:fs/promises");
  await writeFile(ledger, rows.slice(1).join("\n") + "\n");
  const incomplete = await runCli(["report", runDir]);
  assert.equal(incomplete.code, 3);
  assert.match(incomplete.stdout, /FAIL ledger_complete: 8 rows for 9 scheduled attempts/);
  assert.doesNotMatch(incomplete.stdout, /^On tiny-fix/m);
  await appendFile(join(pack, "tasks/py-fix-clamp/hidden/test_hidden_clamp.py"), "\n");
  const skip = await runCli(["report", runDir, "--json"]);
  assert.equal(skip.code, 2);
  assert.equal((JSON.parse(skip.stdout) as Report).status, "SKIP");
  const notRun = await runCli(["report", pack]);
  assert.equal(notRun.code, 4);
});

test("the HTML report in headless Chromium: gates, forest plot and per-task table with working links", async (t) => {
  if (!requireTool(t, "chromium")) return;
  const { runDir, dir } = await oracleRun(t);
  const html = join(dir, "out", "report.html");
  const { mkdir } = await import("node:fs/promises");
  await mkdir(dirname(html), { recursive: true });
  const made = await runCli(["report", runDir, "--html", html]);
  assert.equal(made.code, 0, made.stderr);
  const page = await readFile(html, "utf8");
  assert.doesNotMatch(page, /(src|href)="https?:/, "no remote assets");
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    const tab = await browser.newPage();
    await tab.goto(`file://${html}`);
    assert.equal(await tab.locator("h1 .status").innerText(), "OK");
    assert.equal(await tab.locator("table.gates tr.gate").count(), 14);
    assert.ok(await tab.locator("table.gates").isVisible());
    const svg = tab.locator("svg.forest");
    assert.ok(await svg.isVisible());
    // Four tasks per stratum cannot show homogeneity: the overall is withheld, and not drawn.
    assert.equal(await svg.locator("circle.estimate").count(), 2, "two strata, no overall");
    assert.equal(await svg.locator("line.ci").count(), 2);
    assert.equal(await tab.locator("table.tasks tr.task").count(), 9);
    assert.ok(await tab.locator("blockquote.sentence").isVisible());
    const href = await tab.locator("table.tasks tr.task a", { hasText: "diff" }).first().getAttribute("href");
    assert.ok(href !== null && existsSync(resolve(dirname(html), href)), `diff link ${href} resolves`);
    if (process.env.BENCHCARD_SCREENSHOT) await tab.screenshot({ path: process.env.BENCHCARD_SCREENSHOT, fullPage: true });
  } finally {
    await browser.close();
  }
});
