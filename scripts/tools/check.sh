#!/usr/bin/env bash
# Quality gates: exports agree, portability, imports point down the layers, generated code
# in sync (Lua, dashboard script), type checks (tsc for Bun and for the dashboard's browser
# code, deno check for the Deno entry), lint and format. `--with-tests` runs the tests too.
set -euo pipefail
cd "$(dirname "$0")/../.."
PATH="$PWD/node_modules/.bin:$PATH"
bun scripts/tools/check-exports.ts
bun scripts/tools/check-portability.ts
bun scripts/tools/check-layers.ts
if [ -f scripts/tools/gen-lua.ts ]; then bun scripts/tools/gen-lua.ts --check; fi
bun scripts/tools/gen-dashboard.ts --check
tsc -p tsconfig.json
echo "tsc: ok"
tsc -p routes/dashboard/client/tsconfig.json
echo "tsc (dashboard client): ok"
deno check --quiet src/mod.ts src/core/timing-wheel.ts src/storage/redis/redis-storage.ts src/adapters/redis-tcp.ts src/adapters/redis-cluster.ts src/storage/redis/partitions.ts scripts/entry/worker.ts scripts/entry/serve.ts
echo "deno check: ok"
deno lint --quiet
echo "deno lint: ok"
deno fmt --check --quiet
echo "deno fmt: ok"
if [ "${1:-}" = "--with-tests" ]; then bash scripts/tools/test.sh; fi
