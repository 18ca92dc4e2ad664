/**
 * Access configuration: SKEDULR_KEYS, SKEDULR_ALLOWED_HOSTS, SKEDULR_TRUST_PROXY and
 * SKEDULR_SESSION_SECRET are checked at start with messages naming the variable (and never
 * echoing a key), keygen's output is what SKEDULR_KEYS takes, and the Cloudflare Worker
 * refuses to serve without a token.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { handle } from "../../scripts/entry/cloudflare-handler.ts";
import { keygen } from "../../scripts/entry/new-key.ts";
import { parseApiKeys } from "../../src/worker/access-config.ts";
import { ConfigError, parseWorkerConfig } from "../../src/worker/config.ts";

const HASH = "ab".repeat(32);
const TOKEN = "access-config-token-0123456789";

function problems(env: Record<string, string>): string {
  try {
    parseWorkerConfig(env);
    return "";
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.message;
  }
}

describe("access configuration", () => {
  it("parses SKEDULR_KEYS and names each bad entry without echoing a pasted key", () => {
    const config = parseWorkerConfig({
      SKEDULR_KEYS: `ci:submit:${HASH}, grafana:read:${"CD".repeat(32)}`,
    });
    assert.deepEqual(config.keys, [
      { name: "ci", role: "submit", sha256: HASH },
      { name: "grafana", role: "read", sha256: "cd".repeat(32) },
    ]);
    const pasted = "skd_ThisIsASecretKeyPastedByMistake";
    const bad: [string, RegExp][] = [
      [`ci:owner:${HASH}`, /role must be read, submit or admin/],
      [`ci:read:${HASH.slice(2)}`, /64 hex digits/],
      [`token:admin:${HASH}`, /SKEDULR_TOKEN's/],
      [`a.b:read:${HASH}`, /letters, digits/],
      [`ci:read:${HASH},ci:admin:${"cd".repeat(32)}`, /listed twice/],
      [`ci:read:${HASH},cd:admin:${HASH}`, /same key hash/],
      [pasted, /expected name:role:sha256hex/],
    ];
    for (const [spec, message] of bad) {
      const text = problems({ SKEDULR_KEYS: spec });
      assert.match(text, /SKEDULR_KEYS: entry/, spec);
      assert.match(text, message, spec);
    }
    for (const spec of [pasted, `ci:read:${pasted}`, `${pasted}:x`]) {
      assert.doesNotMatch(problems({ SKEDULR_KEYS: spec }), /ThisIsASecret/, spec);
    }
  });

  it("checks the proxy header and the session secret", () => {
    assert.equal(
      parseWorkerConfig({ SKEDULR_TRUST_PROXY: "X-Forwarded-For" }).trustProxy,
      "x-forwarded-for",
    );
    assert.match(
      problems({ SKEDULR_TRUST_PROXY: "x forwarded" }),
      /SKEDULR_TRUST_PROXY: expected a header name/,
    );
    assert.match(
      problems({ SKEDULR_SESSION_SECRET: "short" }),
      /SKEDULR_SESSION_SECRET: use at least 32/,
    );
    const config = parseWorkerConfig({});
    assert.deepEqual([config.keys, config.allowedHosts, config.trustProxy], [[], null, null]);
  });

  it("keygen prints a key whose entry SKEDULR_KEYS admits, and refuses bad arguments", async () => {
    const made = await keygen("ci", "submit");
    assert.ok("key" in made);
    assert.match(made.key, /^skd_[A-Za-z0-9_-]{43}$/);
    const { keys, problems } = parseApiKeys(made.entry);
    assert.deepEqual(problems, []);
    assert.equal(keys[0].name, "ci");
    assert.ok(!made.entry.includes(made.key), "the entry holds the hash, not the key");
    assert.ok("error" in await keygen("token", "admin"));
    assert.ok("error" in await keygen("ci", "root"));
    const cli = spawnSync(process.execPath.includes("deno") ? "deno" : "bun", [
      ...(process.execPath.includes("deno") ? ["run", "-A"] : []),
      "scripts/entry/keygen.ts",
      "ops",
      "admin",
    ], { encoding: "utf8" });
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(cli.stdout, /^key: +skd_\S+\nentry: +ops:admin:[0-9a-f]{64}\n/);
  });

  it("the Cloudflare Worker refuses to serve without SKEDULR_TOKEN, saying why", async () => {
    const env = { UPSTASH_REDIS_REST_URL: "http://127.0.0.1:1", UPSTASH_REDIS_REST_TOKEN: "x" };
    const res = await handle(new Request("https://sked.example/skedulr/api/stats"), env);
    assert.equal(res.status, 500);
    const { error } = await res.json();
    assert.match(error.message, /SKEDULR_TOKEN is not set: a Worker is reachable from anywhere/);
    const badKeys = await handle(new Request("https://sked.example/skedulr/api/stats"), {
      ...env,
      SKEDULR_TOKEN: TOKEN,
      SKEDULR_KEYS: "ci:read:nothex",
    });
    assert.match((await badKeys.json()).error.message, /SKEDULR_KEYS: entry 1 "ci"/);
  });
});
