#!/usr/bin/env bash
# The README's test command. Runs every test file under Bun, then the runtime-agnostic
# suites (test/unit, test/conformance on the embedded store) again under Deno, and prints
# one closing line summed over both runners: "N passed, M failed, K skipped". A hook that
# threw (Bun reports its tests as passed) counts as a failure, and so does a skipped test
# that test/expected-skips.txt does not list, so a stray `.skip` cannot vanish silently.
# A throwaway redis-server is started once for the whole run (see scripts/tools/redis-server.ts)
# unless REDIS_URL is set.
set -uo pipefail
cd "$(dirname "$0")/../.."
PATH="$PWD/node_modules/.bin:$PATH"
mkdir -p .tmp
log_bun=.tmp/test-bun.log
log_deno=.tmp/test-deno.log

own_redis=""
if [ -z "${REDIS_URL:-}" ]; then
  url=$(bun scripts/tools/start-test-redis.ts) || { echo "$url"; echo "0 passed, 1 failed"; exit 1; }
  export REDIS_URL="${url%% *}"
  own_redis="${url##* }"
  trap '[ -n "$own_redis" ] && kill "$own_redis" 2>/dev/null' EXIT
fi

bun test --timeout 30000 "$@" 2>&1 | tee "$log_bun"
bun_rc=${PIPESTATUS[0]}
deno test -A --quiet test/unit test/conformance 2>&1 | tee "$log_deno"
deno_rc=${PIPESTATUS[0]}

# bun prints " N pass" / " M fail"; deno prints "ok | N passed | M failed".
strip() { sed -r 's/\x1b\[[0-9;]*m//g' "$1"; }
bun_count() { strip "$log_bun" | grep -E "^ *[0-9]+ $1\$" | tail -1 | grep -oE '[0-9]+' || echo 0; }
bp=$(bun_count pass); bf=$(bun_count fail); bs=$(bun_count skip)
# A `before` that threw: Bun reports its tests as passed and counts the hook as an error.
bf=$(( ${bf:-0} + $(bun_count error) ))
# Deno counts describe blocks as tests and `it`s as steps: count the steps when there are any.
deno_count() { # $1 = passed|failed
  local line; line=$(strip "$log_deno" | grep -oE "[0-9]+ $1( \([0-9]+ steps?\))?" | tail -1)
  if [[ "$line" =~ \(([0-9]+)\ step ]]; then echo "${BASH_REMATCH[1]}"; else echo "${line%% *}"; fi
}
dp=$(deno_count passed); df=$(deno_count failed); ds=$(deno_count ignored)

# Skipped tests by name ("bun: x > y", "deno: y"), each of which must be listed as expected.
skipped=$( (strip "$log_bun" | sed -nE 's/^\(skip\) (.*)$/bun: \1/p'
  strip "$log_deno" | sed -nE 's/^ *(.*[^ ]) \.\.\. ignored.*$/deno: \1/p') | sort -u)
unexpected=$(comm -23 <(printf '%s\n' "$skipped" | sed '/^$/d') \
  <(grep -vE '^(#|$)' test/expected-skips.txt | sed -E 's/ +# .*$//' | sort -u))
if [ -n "$unexpected" ]; then
  echo "unexpected skips (list them in test/expected-skips.txt with the reason, or un-skip):"
  printf '%s\n' "$unexpected" | sed 's/^/  /'
  df=$(( ${df:-0} + 1 ))
fi
# A runner that crashed before counting is one failure, never a silent pass.
[ "$bun_rc" -ne 0 ] && [ "${bf:-0}" -eq 0 ] && bf=1
[ "$deno_rc" -ne 0 ] && [ "${df:-0}" -eq 0 ] && df=1
passed=$(( ${bp:-0} + ${dp:-0} )); failed=$(( ${bf:-0} + ${df:-0} ))
skips=$(( ${bs:-0} + ${ds:-0} ))
echo "bun: ${bp:-0} passed, ${bf:-0} failed, ${bs:-0} skipped; deno: ${dp:-0} passed, ${df:-0} failed, ${ds:-0} skipped"
echo "$passed $failed $skips" > .tmp/test-counts
echo "$passed passed, $failed failed, $skips skipped"
[ "$failed" -eq 0 ]
