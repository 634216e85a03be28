import { readFile } from "node:fs/promises";
import { basename, extname, resolve } from "node:path";
import { agreementReport, type AgreementOptions, type Grader } from "../../core/agreement/report.js";
import { parseLabels } from "../../core/agreement/labels.js";
import type { AlphaLevel } from "../../core/agreement/krippendorff.js";
import type { Weighting } from "../../core/agreement/cohen.js";
import { BenchcardError, type ExitCode, type Issue } from "../../core/common/errors.js";
import { writeFileAtomic } from "../../pack/lockfile.js";
import { renderKappa, renderKappaMarkdown } from "../../report/kappa.js";
import { integer, parseFlags, positiveInt } from "../args.js";
import type { Io } from "../io.js";

export async function kappaCommand(args: readonly string[], io: Io): Promise<ExitCode> {
  const { values, positionals } = parseFlags("kappa", args, {
    gate: { type: "string" },
    "gate-on": { type: "string" },
    scale: { type: "string" },
    weights: { type: "string" },
    level: { type: "string" },
    abstain: { type: "string" },
    confidence: { type: "string" },
    bootstrap: { type: "string" },
    seed: { type: "string" },
    adjudicate: { type: "string" },
    json: { type: "boolean" },
    md: { type: "boolean" },
  });
  if (positionals.length < 2) {
    throw new BenchcardError("bad_input", `Cannot run "benchcard kappa": expected at least two label files, found ${positionals.length}`);
  }
  const options = parseOptions(values);
  const graders: Grader[] = [];
  const issues: Issue[] = [];
  for (const path of positionals) {
    const file = resolve(io.cwd, path);
    const text = await readFile(file, "utf8").catch(() => undefined);
    if (text === undefined) {
      issues.push({ code: "missing_file", file, path: "", message: "cannot read the label file" });
      continue;
    }
    const ext = extname(file).toLowerCase();
    const parsed = parseLabels(text, file, ext === ".csv" ? "csv" : "jsonl");
    if (!parsed.ok) issues.push(...parsed.issues);
    else graders.push({ name: basename(file, ext), file, rows: parsed.value });
  }
  if (issues.length > 0) throw new BenchcardError("bad_input", `Cannot read labels: ${issues.length} problem(s)`, issues);

  const report = agreementReport(graders, options);
  if (report.status === "REFUSED" && values.adjudicate !== undefined) {
    const lines = report.disagreements.map((d) => JSON.stringify(d)).join("\n");
    await writeFileAtomic(resolve(io.cwd, values.adjudicate), lines === "" ? "" : `${lines}\n`);
  }
  io.stdout(values.json ? JSON.stringify(report, null, 2) : values.md ? renderKappaMarkdown(report) : renderKappa(report));
  if (report.status === "REFUSED" && values.adjudicate === undefined && !values.json) {
    io.stdout(`adjudication set (${report.disagreements.length}): ${report.disagreements.map((d) => d.id).join(", ")}`);
  }
  return report.status === "OK" ? 0 : 3;
}

function parseOptions(values: Record<string, string | boolean | undefined>): AgreementOptions {
  const str = (k: string) => values[k] as string | undefined;
  const weights = oneOf("weights", str("weights") ?? "none", ["none", "linear", "quadratic"]) as Weighting;
  const level = oneOf("level", str("level") ?? "nominal", ["nominal", "ordinal", "interval"]) as AlphaLevel;
  const gateOn = oneOf("gate-on", str("gate-on") ?? "point", ["point", "lower"]) as "point" | "lower";
  const confidence = str("confidence") === undefined ? 0.95 : Number(str("confidence"));
  if (!(confidence > 0 && confidence < 1)) throw new BenchcardError("bad_input", `Cannot use --confidence "${str("confidence")}": expected a number between 0 and 1`);
  const options: AgreementOptions = {
    weights,
    level,
    confidence,
    abstain: (str("abstain") ?? "unclear").split(",").map((s) => s.trim()).filter((s) => s !== ""),
  };
  const scale = str("scale");
  if (scale !== undefined) {
    const items = scale.split(",").map((s) => s.trim());
    if (items.some((s) => s === "") || new Set(items).size !== items.length || items.length < 2) {
      throw new BenchcardError("bad_input", `Cannot use --scale "${scale}": expected two or more distinct comma-separated labels`);
    }
    options.scale = items;
  }
  const gate = str("gate");
  if (gate !== undefined) {
    const floor = Number(gate);
    if (!(floor >= -1 && floor <= 1)) throw new BenchcardError("bad_input", `Cannot use --gate "${gate}": expected a number between -1 and 1`);
    options.gate = { floor, on: gateOn };
  } else if (str("gate-on") !== undefined) {
    throw new BenchcardError("bad_input", "Cannot use --gate-on without --gate");
  }
  const boot = str("bootstrap");
  if (boot !== undefined) {
    options.bootstrap = { resamples: positiveInt("bootstrap", boot, 1000), seed: str("seed") === undefined ? 0 : integer("seed", str("seed") as string) };
  } else if (str("seed") !== undefined) {
    throw new BenchcardError("bad_input", "Cannot use --seed without --bootstrap");
  }
  return options;
}

function oneOf(flag: string, value: string, allowed: readonly string[]): string {
  if (!allowed.includes(value)) throw new BenchcardError("bad_input", `Cannot use --${flag} "${value}": expected one of ${allowed.join(", ")}`);
  return value;
}
