// Builds small packs on disk for tests: a valid card plus the task folders asked for.
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

export const MINI_CARD = `name: mini
version: 0.1.0
license: MIT
description: a pack built by a test
sampling: every task the test wrote
contamination: { posture: private_ids, denylist: denylist.txt }
strata: [ { id: s, description: the only stratum } ]
contract: { pass: the oracle exits 0, oracle: "python3 check.py", oracle_timeout_s: 20, max_patch_bytes: 10000 }
envelope: { wall_s: 20, max_output_tokens: unknown, max_steps: unknown, max_retries: 0, network: none }
controls: { oracle_repeats: 2, replays: 1, max_replay_drift: 0, min_n_per_stratum: 1, max_infra_rate: 0.1 }
policy: { timeout: fail, invalid: fail, confidence: 0.95, interval: wilson, tie_band: 0.1, oracle_integrity: exit_code }
`;

export interface MiniTask {
  /** Extra task.yaml lines (oracle, control, ...). */
  yaml?: string;
  title?: string;
  prompt?: string;
  repo?: Record<string, string>;
  hidden?: Record<string, string>;
  solution?: Record<string, string>;
}

/** A task whose check.py passes only when solution/answer.txt says "42". */
export const ANSWER_TASK: MiniTask = {
  repo: { "answer.txt": "0\n" },
  hidden: { "check.py": "import sys\nsys.exit(0 if open('answer.txt').read().strip() == '42' else 1)\n" },
  solution: { "answer.txt": "42\n" },
};

export async function writeMiniPack(
  root: string,
  tasks: Record<string, MiniTask>,
  options: { card?: string; denylist?: string } = {},
): Promise<string> {
  await put(join(root, "benchcard.yaml"), options.card ?? MINI_CARD);
  await put(join(root, "denylist.txt"), options.denylist ?? "a public benchmark title nobody should copy\n");
  for (const [id, task] of Object.entries(tasks)) {
    const dir = join(root, "tasks", id);
    await put(
      join(dir, "task.yaml"),
      `id: ${id}\nstratum: s\ntitle: ${task.title ?? `task ${id}`}\norigin: synthetic\nleakage_risk: low\n${task.yaml ?? ""}`,
    );
    await put(join(dir, "prompt.md"), task.prompt ?? "Make check.py pass.\n");
    await mkdir(join(dir, "repo"), { recursive: true });
    for (const [folder, files] of [["repo", task.repo], ["hidden", task.hidden], ["solution", task.solution]] as const) {
      for (const [path, text] of Object.entries(files ?? {})) await put(join(dir, folder, path), text);
    }
  }
  return root;
}

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}
