#!/bin/sh
# A demo agent for the tiny-fix pack that only knows JavaScript: it fixes the js-fix stratum's
# four bugs when it recognises the file, and leaves everything else alone. It never sees the gold.
set -eu
cd "$BENCHCARD_WORKSPACE"
[ -f lib/sum.mjs ] && sed -i 's/let i = 1;/let i = 0;/' lib/sum.mjs
[ -f lib/capitalize.mjs ] && sed -i 's/return word.toUpperCase();/return word.slice(0, 1).toUpperCase() + word.slice(1).toLowerCase();/' lib/capitalize.mjs
[ -f lib/range.mjs ] && sed -i 's/i <= end/i < end/' lib/range.mjs
[ -f lib/unique.mjs ] && sed -i 's/\[\.\.\.new Set(values)\]\.sort()/[...new Set(values)]/' lib/unique.mjs
echo "js-fixer: done"
