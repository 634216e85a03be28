/**
 * One error type with a closed set of codes. Every code maps to one exit code in
 * `EXIT_CODES`; adding a code without a row there fails to compile.
 */

export type ErrorCode = "drift" | "refused" | "bad_input";

/** 130: interrupted by Ctrl-C (SIGINT or SIGTERM), the ledger flushed, `--resume` completes it. */
export type ExitCode = 0 | 1 | 2 | 3 | 4 | 130;

export const EXIT_CODES: Record<ErrorCode, ExitCode> = {
  drift: 2,
  refused: 3,
  bad_input: 4,
};

/** One located problem: which file, which line, which field, and what is wrong. */
export interface Issue {
  code: string;
  file: string;
  line?: number;
  path: string;
  message: string;
}

export class BenchcardError extends Error {
  readonly code: ErrorCode;
  readonly issues: readonly Issue[];

  constructor(code: ErrorCode, message: string, issues: readonly Issue[] = []) {
    super(message);
    this.name = "BenchcardError";
    this.code = code;
    this.issues = issues;
  }

  get exitCode(): ExitCode {
    return EXIT_CODES[this.code];
  }
}

/** `file:line: field: message`, the one line format every issue is printed in. */
export function formatIssue(issue: Issue): string {
  const where = issue.line === undefined ? issue.file : `${issue.file}:${issue.line}`;
  const field = issue.path === "" ? "" : ` ${issue.path}:`;
  return `${where}:${field} ${issue.message}`;
}

export type Result<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };
