import { parseArgs, type ParseArgsConfig } from "node:util";
import { BenchcardError } from "../core/common/errors.js";

type Options = NonNullable<ParseArgsConfig["options"]>;
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>>;

/**
 * `--help` on a command: carries the command's own flag table (the one its parser uses), so the
 * help it prints can never list a flag the parser does not take, or miss one it does.
 */
export class HelpRequested extends Error {
  constructor(readonly command: string, readonly flags: readonly string[]) {
    super(`help for ${command}`);
  }
}

/** util.parseArgs with our error: an unknown flag or a missing value is bad input (exit 4). */
export function parseFlags<O extends Options>(command: string, args: readonly string[], options: O): Parsed<O> {
  if (args.includes("--help") || args.includes("-h")) {
    throw new HelpRequested(command, Object.entries(options).map(([name, o]) => (o.type === "boolean" ? `--${name}` : `--${name} VALUE`)));
  }
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new BenchcardError("bad_input", `Cannot parse arguments of "benchcard ${command}": ${(error as Error).message}`);
  }
}

/** A positive whole number from a flag, or the fallback; anything else is bad input. */
export function positiveInt(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new BenchcardError("bad_input", `Cannot use --${flag} "${value}": expected a whole number of at least 1`);
  }
  return n;
}

export function fraction(flag: string, value: string): number {
  const n = Number(value);
  if (!(n > 0 && n < 1)) throw new BenchcardError("bad_input", `Cannot use --${flag} "${value}": expected a number between 0 and 1`);
  return n;
}

export function integer(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new BenchcardError("bad_input", `Cannot use --${flag} "${value}": expected a whole number`);
  return n;
}

export function atMostOne(command: string, positionals: readonly string[]): string | undefined {
  if (positionals.length > 1) {
    throw new BenchcardError("bad_input", `Cannot run "benchcard ${command}": expected at most one pack folder, found ${positionals.length}`);
  }
  return positionals[0];
}
