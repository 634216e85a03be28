import { dirname, join, relative, resolve } from "node:path";
import { BenchcardError, type ExitCode } from "../../core/common/errors.js";
import { buildReport, exitCodeFor } from "../../core/report/report-model.js";
import { loadPack } from "../../pack/load.js";
import { writeFileAtomic } from "../../pack/lockfile.js";
import { locatePack } from "../../run/locate-pack.js";
import { readHoldoutLog } from "../../pack/holdout-log.js";
import { inSplit } from "../../core/pack/split.js";
import { verifyPack } from "../../pack/verify.js";
import { renderReportHtml } from "../../report/report-html.js";
import { renderReport, renderReportMarkdown } from "../../report/report-text.js";
import { readLedger } from "../../run/ledger.js";
import { LEDGER_FILE, readRunRecord } from "../../run/run.js";
import { parseFlags } from "../args.js";
import type { Io } from "../io.js";

/** Reads a run folder and everything the report needs; the model itself is pure. */
export async function loadReport(runDirArg: string, io: Io, options: { pack?: string } = {}) {
  const runDir = resolve(io.cwd, runDirArg);
  const record = await readRunRecord(runDir);
  const { rows, corrections } = await readLedger(join(runDir, LEDGER_FILE), { repair: false });
  const located = await locatePack(runDir, record, options.pack === undefined ? undefined : resolve(io.cwd, options.pack));
  const lock = located.lock;
  const verified = await verifyPack(located.root, { lock });
  const pack = await loadPack(located.root);
  const inThisSplit = (id: string) => inSplit(lock.split, record.split, id);
  const scheduledTasks = Object.entries(lock.validation.tasks)
    .filter(([id]) => inThisSplit(id))
    .map(([id, t]) => ({ id, stratum: t.stratum, role: t.role }));
  const report = buildReport({
    card: pack.card,
    lock,
    rows,
    run: {
      run_id: record.run_id,
      scheduled: record.scheduled,
      seed: record.seed,
      replays: record.replays,
      split: record.split,
      isolation: record.isolation,
      agent_id: record.agent.id,
      agent_fingerprint: record.agent.fingerprint,
      shard: record.shard,
      environment_digest: record.environment?.digest ?? null,
      merged_shards: record.merged_from?.length ?? 0,
      regraded_from: record.regraded_from === undefined ? null : { run_id: record.regraded_from.run_id, pack_hash: record.regraded_from.pack_hash },
    },
    scheduledTasks,
    drift: verified.drift,
    ...(record.split === "holdout" ? { holdout: await readHoldoutLog(located.root) } : {}),
    corrections,
  });
  return { report, runDir, record, rows, lock, pack };
}

export async function reportCommand(args: readonly string[], io: Io): Promise<ExitCode> {
  const { values, positionals } = parseFlags("report", args, { json: { type: "boolean" }, md: { type: "boolean" }, html: { type: "string" }, pack: { type: "string" } });
  if (positionals.length !== 1) throw new BenchcardError("bad_input", `Cannot run "benchcard report": expected one run folder, found ${positionals.length}`);
  const { report, runDir } = await loadReport(positionals[0] as string, io, values.pack === undefined ? {} : { pack: values.pack });
  if (values.html !== undefined) {
    const file = resolve(io.cwd, values.html);
    await writeFileAtomic(file, renderReportHtml(report, { linkBase: relative(dirname(file), runDir) || "." }));
    io.stdout(`wrote ${file} (status ${report.status})`);
  } else if (values.json) io.stdout(JSON.stringify(report, null, 2));
  else if (values.md) io.stdout(renderReportMarkdown(report));
  else io.stdout(renderReport(report));
  return exitCodeFor(report.status);
}
