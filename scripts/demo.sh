#!/usr/bin/env bash
# The README demo: the bundled example pack, end to end, in demo-out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bc() { node bin/benchcard.js "$@"; }
rm -rf demo-out && mkdir -p demo-out
bc init demo-out/pack
echo; echo "== validate: every control, k of k"
bc validate demo-out/pack --jobs 2
echo; echo "== freeze: write benchcard.lock"
bc freeze demo-out/pack --jobs 2 | tail -n 1
echo; echo "== verify: the pack still matches its lock"
bc verify demo-out/pack
echo; echo "== run: the gold as an agent (oracle) and the empty patch (nop)"
bc run demo-out/pack --agent oracle --out demo-out/runs --run-id oracle --seed 1 --jobs 2 2>/dev/null
bc run demo-out/pack --agent nop --out demo-out/runs --run-id nop --seed 1 --jobs 2 2>/dev/null
echo; echo "== report (HTML: demo-out/report.html)"
bc report demo-out/runs/oracle --html demo-out/report.html
bc report demo-out/runs/oracle
