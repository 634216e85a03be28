/**
 * The reporters benchcard loads into the test runner: each writes one JSON line per test
 * ({"id", "outcome", "message"}) to the file named by BENCHCARD_TEST_REPORT (pytest) or by
 * --test-reporter-destination (node:test), outside the workspace. Shipped as text and written
 * to a read-only folder of the oracle's sandbox for each run.
 */

export const PYTEST_PLUGIN_MODULE = "benchcard_report";

export const PYTEST_PLUGIN = `# benchcard's pytest plugin: one JSON line per test, flushed as each result is known.
import json
import os

_path = os.environ.get("BENCHCARD_TEST_REPORT")
_out = open(_path, "a", encoding="utf-8") if _path else None


def _emit(nodeid, outcome, message=""):
    if _out is None:
        return
    _out.write(json.dumps({"id": nodeid, "outcome": outcome, "message": message[-2000:]}) + "\\n")
    _out.flush()


def _message(report):
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return str(crash.message)
    return str(report.longrepr or "")


def pytest_collectreport(report):
    if report.failed:
        _emit(report.nodeid or "<collection>", "error", _message(report))


def pytest_runtest_logreport(report):
    if report.when == "call":
        if report.passed:
            _emit(report.nodeid, "passed")
        elif report.skipped:
            _emit(report.nodeid, "skipped", _message(report))
        else:
            _emit(report.nodeid, "failed", _message(report))
    elif report.failed:
        _emit(report.nodeid, "error", _message(report))
    elif report.skipped:
        _emit(report.nodeid, "skipped", _message(report))
`;

export const NODE_REPORTER_FILE = "benchcard-reporter.mjs";

export const NODE_REPORTER = `// benchcard's node:test reporter: one JSON line per test (suites left out).
import { relative } from "node:path";

export default async function* benchcardReporter(source) {
  const stacks = new Map();
  for await (const event of source) {
    const d = event.data ?? {};
    const file = typeof d.file === "string" ? relative(process.cwd(), d.file) : "";
    if (event.type === "test:start") {
      const stack = stacks.get(file) ?? [];
      stack.length = d.nesting;
      stack.push(String(d.name));
      stacks.set(file, stack);
      continue;
    }
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    if (d.details?.type === "suite") continue;
    const path = [...(stacks.get(file) ?? []).slice(0, d.nesting), String(d.name)];
    const skipped = (d.skip !== undefined && d.skip !== false) || (d.todo !== undefined && d.todo !== false);
    const outcome = event.type === "test:fail" ? "failed" : skipped ? "skipped" : "passed";
    const error = d.details?.error;
    const message = error === undefined ? "" : [error.message, error.cause?.message].filter((m) => typeof m === "string").join(" | ");
    yield JSON.stringify({ id: file + "::" + path.join(" > "), outcome, message: message.slice(0, 2000) }) + "\\n";
  }
}
`;
