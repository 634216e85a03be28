import { CENSORED, type Outcome } from "../core/attempt/outcome.js";
import type { Progress } from "../run/run.js";

function seconds(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${s}s`;
}

/** The live progress line: done/total, pass/fail/censored so far, elapsed, ETA. */
export function progressLine(p: Progress): string {
  const get = (o: Outcome) => p.counts[o] ?? 0;
  const censored = [...CENSORED].reduce((acc, o) => acc + get(o), 0);
  const failed = get("fail") + get("timeout") + get("truncated") + get("invalid");
  // Time per attempt from the attempts this process ran (not those a resumed run found done).
  const here = p.doneHere ?? p.done;
  const eta = here > 0 && p.done < p.total ? (p.elapsedMs / here) * (p.total - p.done) : 0;
  return `[${p.done}/${p.total}] pass ${get("pass")}  fail ${failed}  censored ${censored}  elapsed ${seconds(p.elapsedMs)}  eta ${seconds(eta)}`;
}

/** One plain line per finished attempt, for logs and pipes. */
export function attemptLine(p: Progress): string {
  const last = p.last;
  return last === undefined ? progressLine(p) : `[${p.done}/${p.total}] ${last.attempt_id} ${last.outcome} (${last.wall_s.toFixed(2)}s)`;
}
