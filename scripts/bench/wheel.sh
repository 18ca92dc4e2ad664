#!/usr/bin/env bash
# Timing-wheel benchmark (npm run bench:wheel): the wheel by integer handle and by string id
# against setTimeout (and against a bare Map<string, number>, the id lookup the string-keyed
# structures need), under Bun and Deno. Every cell runs in a fresh process, cells run one at a
# time (the machine has 2 cores), REPS repetitions (default 3) interleaved so drift spreads
# across structures, and one markdown table of medians is printed at the end. Raw JSON lines
# are kept in .tmp/bench-wheel.jsonl; the load average is printed at the start and the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
PATH="$PWD/node_modules/.bin:$PATH"
reps=${REPS:-3}
sizes=${SIZES:-"10000 100000 1000000"}
late_n=${LATE_N:-100000}
mkdir -p .tmp
out=.tmp/bench-wheel.jsonl
: >"$out"

cell() { # runtime mode structure N
  local runtime=$1 load line
  shift
  load=$(cut -d' ' -f1 /proc/loadavg)
  echo "  $runtime $* (load $load)" >&2
  case $runtime in
    bun) line=$(bun scripts/bench/wheel.ts "$@") ;;
    deno) line=$(deno run -A --v8-flags=--expose-gc scripts/bench/wheel.ts "$@") ;;
  esac
  # The 1-minute load average when the cell started, for judging its figures afterwards.
  echo "${line%\}},\"load\":$load}" >>"$out"
}

echo "bun $(bun --version), $(deno --version | head -1), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
start=$SECONDS
for rep in $(seq "$reps"); do
  echo "repetition $rep/$reps, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  for runtime in bun deno; do
    for structure in handles wheel timeout map; do
      for n in $sizes; do cell "$runtime" fill "$structure" "$n"; done
      # The Map alone is only the lookup floor under insert and cancel; it fires nothing.
      [ "$structure" = map ] || cell "$runtime" late "$structure" "$late_n"
    done
  done
done
echo "done in $((SECONDS - start)) s, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
bun scripts/bench/wheel.ts report "$out"
