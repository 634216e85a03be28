#!/bin/sh
# A demo agent for the tiny-fix pack that only knows Python: it fixes the py-fix stratum's four
# bugs when it recognises the file, and leaves everything else alone. It never sees the gold.
set -eu
cd "$BENCHCARD_WORKSPACE"
if [ -f stats.py ] && grep -q 'return ordered\[middle\]' stats.py; then
  cat > stats.py <<'PY'
def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2 == 0:
        return (ordered[middle - 1] + ordered[middle]) / 2
    return ordered[middle]
PY
fi
if [ -f bounds.py ]; then
  sed -i 's/return high$/return @HIGH@/; s/return low$/return high/; s/return @HIGH@$/return low/' bounds.py
fi
if [ -f text.py ]; then
  sed -i 's/"\[^a-z0-9\]", "-", title.lower())/"[^a-z0-9]+", "-", title.lower()).strip("-")/' text.py
fi
if [ -f batching.py ]; then
  sed -i 's/range(0, len(items) - size + 1, size)/range(0, len(items), size)/' batching.py
fi
echo "py-fixer: done"
