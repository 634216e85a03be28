#!/usr/bin/env bash
# The README demo: the bundled example pack, end to end, in demo-out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bc() { node bin/benchcard.js "$@"; }
rm -rf demo-out && mkdir -p demo-out
bc init demo-out/pack
echo; echo "== validate: every control, k of k"
bc validate demo-out/pack --jobs 2
echo; echo "== freeze: write benchcard.lock (holdout 0.5, seed 1)"
bc freeze demo-out/pack --holdout 0.5 --seed 1 --jobs 2 | tail -n 1
echo; echo "== verify: the pack still matches its lock"
bc verify demo-out/pack
