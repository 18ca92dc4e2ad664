#!/usr/bin/env bash
# The Redis Cluster suites (`npm run test:cluster`): the behaviour suite on a real 3-master
# cluster and on one Redis in 3 partitions, worker processes on a cluster (exactly-once,
# delayed, cron, cancel, kill -9, idle cost) and a cluster losing a master (manual failover,
# a killed master), and the behaviour suite on a cluster again under Deno. Each file starts
# its own servers on free ports. Not part of `npm test`:
# the files are named *.cluster.ts, which `bun test` does not pick up by itself. Prints one
# closing line "N passed, M failed" and writes "N M" to .tmp/test-cluster-counts.
set -uo pipefail
cd "$(dirname "$0")/../.."
PATH="$PWD/node_modules/.bin:$PATH"
mkdir -p .tmp
log=.tmp/test-cluster.log
files=(./test/cluster/*.cluster.ts)
bun test --timeout 150000 "${files[@]}" "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
# The behaviour suite on a cluster once more under Deno (ioredis's Cluster on Deno).
deno_log=.tmp/test-cluster-deno.log
deno test -A --quiet ./test/cluster/conformance.cluster.ts 2>&1 | tee "$deno_log"
deno_rc=${PIPESTATUS[0]}
strip() { sed -r 's/\x1b\[[0-9;]*m//g' "$1"; }
count() { strip "$log" | grep -E "^ *[0-9]+ $1\$" | tail -1 | grep -oE '[0-9]+' || echo 0; }
passed=$(count pass); failed=$(( $(count fail) + $(count error) ))
# Deno counts describe blocks as tests and `it`s as steps: count the steps.
deno_count() {
  local line; line=$(strip "$deno_log" | grep -oE "[0-9]+ $1( \([0-9]+ steps?\))?" | tail -1)
  if [[ "$line" =~ \(([0-9]+)\ step ]]; then echo "${BASH_REMATCH[1]}"; else echo "${line%% *}"; fi
}
dp=$(deno_count passed); df=$(deno_count failed)
[ "$deno_rc" -ne 0 ] && [ "${df:-0}" -eq 0 ] && df=1
# A runner that crashed before counting is one failure, never a silent pass.
[ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
passed=$(( passed + ${dp:-0} )); failed=$(( failed + ${df:-0} ))
echo "$passed $failed" > .tmp/test-cluster-counts
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
