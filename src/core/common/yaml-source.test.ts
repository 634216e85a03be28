import assert from "node:assert/strict";
import { test } from "node:test";
import { CardSchema, TaskSchema } from "../pack/card.js";
import { parseYamlAs } from "./yaml-source.js";

test("a syntax error is reported with its line", () => {
  const result = parseYamlAs(TaskSchema, "id: a\nstratum: [oops\ntitle: x\n", "t.yaml");
  assert.equal(result.ok, false);
  if (result.ok) return;
  assert.equal(result.issues[0]?.code, "yaml_syntax");
  assert.equal(result.issues[0]?.file, "t.yaml");
  assert.ok((result.issues[0]?.line ?? 0) >= 2);
});

test("every schema problem is collected with line and field", () => {
  const text = [
    "id: ok-task", //                1
    "stratum: py-fix", //             2
    "title: 42", //                   3 wrong type
    "origin: synthetic", //           4
    "fences:", //                     5
    "  max_files: many", //           6 wrong type
    "  colour: red", //               7 unknown field
    "", //
  ].join("\n");
  const result = parseYamlAs(TaskSchema, text, "task.yaml");
  assert.equal(result.ok, false);
  if (result.ok) return;
  const byPath = new Map(result.issues.map((i) => [i.path, i]));
  assert.equal(byPath.get("title")?.line, 3);
  assert.match(byPath.get("title")?.message ?? "", /expected string, found number 42/);
  assert.equal(byPath.get("fences.max_files")?.line, 6);
  assert.equal(byPath.get("fences.colour")?.line, 7);
  assert.match(byPath.get("fences.colour")?.message ?? "", /unknown field "colour"/);
  assert.match(byPath.get("leakage_risk")?.message ?? "", /required field is missing/);
  assert.equal(byPath.get("leakage_risk")?.line, 1);
});

test("unknown is accepted where the card allows it, and defaults are filled", () => {
  const card = [
    "name: n",
    "version: 1.0.0",
    "license: MIT",
    "description: d",
    "sampling: s",
    "contamination: { posture: unchecked }",
    "strata: [ { id: a, description: d } ]",
    "contract: { pass: p, oracle: 'true', oracle_timeout_s: 5, max_patch_bytes: unknown }",
    "envelope: { wall_s: 10, max_output_tokens: unknown, max_steps: 3, max_retries: 0 }",
    "controls: { oracle_repeats: 3, replays: 1, max_replay_drift: 0, min_n_per_stratum: 1, max_infra_rate: 0.1 }",
    "policy: { timeout: fail, invalid: fail, confidence: 0.95, interval: wilson, tie_band: 0.1 }",
  ].join("\n");
  const result = parseYamlAs(CardSchema, card, "benchcard.yaml");
  assert.ok(result.ok, JSON.stringify(!result.ok && result.issues));
  if (!result.ok) return;
  assert.equal(result.value.contract.max_patch_bytes, "unknown");
  assert.equal(result.value.envelope.network, "none");
  assert.ok(result.value.contract.forbidden_paths.includes("**/conftest.py"));
});

test("a union field names its options", () => {
  const result = parseYamlAs(TaskSchema.pick({ fences: true }), "fences: { max_files: -1 }\n", "t.yaml");
  assert.equal(result.ok, false);
  if (result.ok) return;
  assert.equal(result.issues[0]?.path, "fences.max_files");
  assert.equal(result.issues[0]?.line, 1);
});
