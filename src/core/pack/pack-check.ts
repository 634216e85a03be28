import type { Issue } from "../common/errors.js";
import { controlRole, type Card, type Task } from "./card.js";

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
  }
  return issues;
}
