import { BenchcardError } from "../core/errors.js";
import type { IsolationKind, SandboxDriver } from "./driver.js";
import { ProcessDriver } from "./process.js";

export const ISOLATION_KINDS: readonly IsolationKind[] = ["process", "bwrap"];

/** The driver for `--isolation`; undefined picks the default for this host. */
export function selectDriver(kind: string | undefined): SandboxDriver {
  switch (kind ?? "process") {
    case "process":
      return new ProcessDriver();
    case "bwrap":
      throw new BenchcardError("bad_input", 'Cannot use isolation "bwrap": this build of benchcard has no bwrap driver yet; use --isolation process');
    default:
      throw new BenchcardError("bad_input", `Cannot use isolation "${kind}": expected one of ${ISOLATION_KINDS.join(", ")}`);
  }
}
