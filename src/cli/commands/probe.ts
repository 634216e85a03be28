import type { ExitCode } from "../../core/common/errors.js";
import { renderTable } from "../../report/table.js";
import { probe } from "../../sandbox/probe.js";
import { parseFlags } from "../args.js";
import type { Io } from "../io.js";

export async function probeCommand(args: readonly string[], io: Io): Promise<ExitCode> {
  const { values } = parseFlags("probe", args, { json: { type: "boolean" } });
  const report = probe();
  if (values.json) {
    io.stdout(JSON.stringify(report, null, 2));
    return 0;
  }
  const rows = Object.entries(report.drivers).map(([name, d]) => [name, d.works ? "works" : "unavailable", d.detail]);
  io.stdout(renderTable(["driver", "status", "detail"], rows));
  for (const [name, d] of Object.entries(report.drivers)) if (d.advice) io.stdout(`${name}: what to do: ${d.advice}`);
  io.stdout(`limits: ${report.limits.cgroup}; ${report.limits.prlimit}`);
  io.stdout(
    report.default === null
      ? "default: none: run and validate refuse unless --isolation process is given"
      : `default: ${report.default} (run and validate use it unless --isolation says otherwise)`,
  );
  return 0;
}
