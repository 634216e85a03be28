import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { BenchcardError } from "../core/common/errors.js";
import { CANARY_RESULT_SCHEMA } from "../core/canary/manifest.js";
import type { CanaryEvidence } from "../core/report/report-model.js";
import { CANARY_RESULT_FILE, canaryManifestHash, loadCanaryManifest, type CanaryResult } from "./canary.js";

/**
 * A canary folder's result as evidence for a report: its numbers, and every way it fails to
 * apply to the run (another agent fingerprint, another harness version, a manifest that is not
 * the card's or that changed since).
 */
export async function canaryEvidence(dir: string, packRoot: string, manifest: string | undefined, fingerprint: string, harnessVersion: string): Promise<CanaryEvidence> {
  const path = join(resolve(dir), CANARY_RESULT_FILE);
  const text = await readFile(path, "utf8").catch(() => {
    throw new BenchcardError("bad_input", `Cannot use --canary "${dir}": ${path} cannot be read (a folder written by benchcard canary)`);
  });
  let result: CanaryResult;
  try {
    result = JSON.parse(text) as CanaryResult;
  } catch (error) {
    throw new BenchcardError("bad_input", `Cannot use --canary "${dir}": ${path} is not JSON (${(error as Error).message})`);
  }
  if (result.schema !== CANARY_RESULT_SCHEMA) throw new BenchcardError("bad_input", `Cannot use --canary "${dir}": ${path} is not a ${CANARY_RESULT_SCHEMA} result`);
  const mismatch: string[] = [];
  if (result.agent_fingerprint !== fingerprint) mismatch.push(`agent fingerprint ${result.agent_fingerprint.slice(0, 12)} is not the run's ${fingerprint.slice(0, 12)}`);
  if (result.harness_version !== harnessVersion) mismatch.push(`harness version ${result.harness_version} is not the run's ${harnessVersion}`);
  if (manifest === undefined) mismatch.push("the card names no canary manifest (controls.canaries)");
  else {
    const loaded = await loadCanaryManifest(join(packRoot, manifest));
    const now = canaryManifestHash(loaded.text, loaded.dir, loaded.manifest);
    if (now !== result.manifest_hash) mismatch.push(`manifest hash ${result.manifest_hash.slice(0, 12)} is not the hash of the card's ${manifest} now (${now.slice(0, 12)})`);
  }
  const s = result.summary;
  return { cs: s.cs.rate, qr: s.qr.rate, pd: s.pd.rate, passed: s.passed, decision: s.decision, manifest_hash: result.manifest_hash, mismatch };
}
