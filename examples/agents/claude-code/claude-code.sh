#!/bin/sh
# benchcard adapter for Claude Code (npm: @anthropic-ai/claude-code, pinned in package.json
# here). benchcard's sandbox is the boundary, so permission prompts are off; the model is
# reached only through benchcard's gateway (Anthropic messages), named in ANTHROPIC_* variables.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
case "$(uname -m)" in
  x86_64) platform=linux-x64 ;;
  aarch64) platform=linux-arm64 ;;
  *) echo "claude-code adapter: no native package for $(uname -m)" >&2; exit 75 ;;
esac
export DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
export ANTHROPIC_SMALL_FAST_MODEL="$BENCHCARD_MODEL"
exec "$here/node_modules/@anthropic-ai/claude-code-$platform/claude" -p --dangerously-skip-permissions \
  --model "$BENCHCARD_MODEL" --output-format text "$(cat "$BENCHCARD_PROMPT_FILE")" </dev/null
