import type { Issue } from "../common/errors.js";
import { controlRole, type Card, type Task } from "./card.js";
import { isPerTest } from "../oracle/runner.js";
import { LOGS_DIR } from "../oracle/reward.js";

/** What the loader saw on disk for one task folder, as plain data. */
export interface TaskLayout {
  folder: string;
  file: string;
  task: Task;
  hasPrompt: boolean;
  hasRepo: boolean;
  hasHidden: boolean;
  /** visible/: tests both sides may run while the clock runs. */
  hasVisible: boolean;
  gold: "dir" | "patch" | "both" | "none";
  /** The line of each top-level key of task.yaml. */
  lines: Readonly<Record<string, number>>;
}

/**
 * Checks that span files: ids equal folder names, strata are declared and unique, every task
 * has what its control role needs. `strata` is undefined when the card's strata could not be
 * read; the stratum check is then left to the card's own issues. Returns every problem, not just the first.
 */
export function checkPack(
  strata: Card["strata"] | undefined,
  cardFile: string,
  layouts: readonly TaskLayout[],
  /** The card's contract.runner, when the card could be read. */
  cardRunner?: Card["contract"]["runner"],
): Issue[] {
  const issues: Issue[] = [];
  const declared = new Set<string>();
  strata?.forEach((stratum, i) => {
    if (declared.has(stratum.id)) {
      issues.push({ code: "duplicate_stratum", file: cardFile, path: `strata[${i}].id`, message: `stratum "${stratum.id}" is declared twice` });
    }
    declared.add(stratum.id);
  });
  for (const layout of layouts) {
    const { task, file, folder } = layout;
    const problem = (path: string, code: string, message: string) => {
      const line = layout.lines[path];
      issues.push(line === undefined ? { code, file, path, message } : { code, file, line, path, message });
    };
    if (task.id !== folder) {
      problem("id", "id_mismatch", `task id "${task.id}" does not equal its folder name "${folder}"`);
    }
    if (strata !== undefined && !declared.has(task.stratum)) {
      problem("stratum", "undeclared_stratum", `stratum "${task.stratum}" is not declared in the card's strata (declared: ${[...declared].map((s) => `"${s}"`).join(", ")})`);
    }
    if (!layout.hasPrompt) problem("", "missing_prompt", `task "${folder}" has no prompt.md`);
    if (!layout.hasRepo) problem("", "missing_repo", `task "${folder}" has no repo/ folder`);
    if (layout.gold === "both") {
      problem("", "two_golds", `task "${folder}" has both solution/ and solution.patch; keep one`);
    }
    if (layout.gold === "none" && controlRole(task) === "normal") {
      problem("", "missing_gold", `task "${folder}" has no gold fix (solution/ or solution.patch)`);
    }
    if (layout.hasVisible && task.visible_command === undefined) {
      problem("", "visible_without_command", `task "${folder}" has visible/ tests but no visible_command to run them`);
    }
    if (!layout.hasHidden && controlRole(task) === "normal") {
      problem("", "missing_hidden", `task "${folder}" has no hidden/ tests`);
    }
    const places = task.sandbox_paths;
    const runner = task.runner ?? cardRunner;
    if (places?.hidden !== undefined && runner !== undefined && isPerTest(runner)) {
      // The sentinel goes into a hidden test file in the workspace; a per-test runner needs hidden/ laid there.
      problem("sandbox_paths", "hidden_elsewhere_per_test", `task "${folder}" shows hidden/ at ${places.hidden}, but runner "${runner}" needs hidden/ laid over the workspace (use exit-code or reward-file, or drop sandbox_paths.hidden)`);
    }
    const inside = [places?.workspace, places?.hidden, ...(runner === "reward-file" ? [LOGS_DIR] : [])].filter((p): p is string => p !== undefined);
    const under = (a: string, b: string) => a === b || a.startsWith(`${b}/`);
    if (inside.some((a, i) => inside.some((b, j) => i !== j && under(a, b)))) {
      problem("sandbox_paths", "sandbox_paths_overlap", `task "${folder}" shows ${inside.join(", ")} inside the sandbox, and they overlap`);
    }
  }
  return issues;
}
