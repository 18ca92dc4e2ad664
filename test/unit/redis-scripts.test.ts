/**
 * The Lua layer: the generated module matches the .lua files, headers document the script
 * interface, SHAs match Redis's, the NOSCRIPT fallback recovers after SCRIPT FLUSH, and
 * script return codes map to the right errors.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { FACTS_FILE, generate, generateFacts } from "../../scripts/tools/lua-bundle.ts";
import { LUA_FACTS } from "../../src/storage/redis/lua-facts.ts";
import { SHORT_HEAD, TASK_HEAD, TASK_OPTIONS } from "../../src/storage/redis/codec.ts";
import { DEFAULT_POOL } from "../../src/core/task.ts";
import { SCRIPTS } from "../../src/storage/redis/scripts.generated.ts";
import { ScriptRunner, scriptSha } from "../../src/storage/redis/script-runner.ts";
import { checkReply, Code } from "../../src/storage/redis/codes.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import type { RedisTransport } from "../../src/storage/redis/transport.ts";
import {
  CapacityError,
  ConflictError,
  NotFoundError,
  ValidationError,
} from "../../src/core/errors.ts";
import { startRedisServer } from "../../scripts/tools/redis-server.ts";

const LUA_DIR = "src/storage/redis/lua";

describe("Lua scripts", () => {
  it("the generated module is in sync with the .lua files", () => {
    const onDisk = readFileSync("src/storage/redis/scripts.generated.ts", "utf8");
    assert.equal(generate(), onDisk, "run `bun scripts/tools/gen-lua.ts`");
    assert.equal(generateFacts(), readFileSync(FACTS_FILE, "utf8"), "facts.lua: gen-lua.ts too");
  });

  it("each file is named <camelOp>-<numKeys>.lua and its header documents KEYS, ARGV, returns", () => {
    const files = readdirSync(LUA_DIR).filter((f) => f.endsWith(".lua"));
    assert.ok(files.length >= 20, `expected every transition as a script, found ${files.length}`);
    for (const file of files) {
      const m = /^([a-z][A-Za-z]*)-(\d+)\.lua$/.exec(file);
      assert.ok(m, `${file}: bad name`);
      const source = readFileSync(`${LUA_DIR}/${file}`, "utf8");
      const header = source.slice(0, source.indexOf("]]"));
      for (let k = 1; k <= Number(m[2]); k++) {
        assert.match(header, new RegExp(`KEYS\\[${k}\\]`), `${file}: header documents KEYS[${k}]`);
      }
      assert.match(header, /ARGV/, `${file}: header documents ARGV`);
      assert.match(header, /Returns?\b/i, `${file}: header documents the return`);
      assert.equal(SCRIPTS[m[1] as keyof typeof SCRIPTS]?.numKeys, Number(m[2]), file);
      assert.doesNotMatch(source, /['"]TIME['"]/, `${file}: scripts never read Redis's clock`);
      assert.doesNotMatch(source, /['"]KEYS['"]/, `${file}: never the KEYS command`);
    }
  });
});

describe("ScriptRunner", () => {
  let server: Awaited<ReturnType<typeof startRedisServer>>;
  let t: RedisTransport;
  // Its own server: SCRIPT FLUSH would disturb other tests on a shared one.
  before(async () => {
    server = await startRedisServer();
    t = connectRedisTcp(server.url);
  });
  after(async () => {
    await t.close();
    await server.stop();
  });

  const echo = { name: "echo", numKeys: 1, source: "return {KEYS[1], ARGV[1]}" };

  it("computes the same SHA-1 as Redis with Web Crypto", async () => {
    for (const script of Object.values(SCRIPTS)) {
      assert.equal(await scriptSha(script.source), await t.send(["SCRIPT", "LOAD", script.source]));
    }
  });

  it("falls back to EVAL after SCRIPT FLUSH, for single calls and pipelines", async () => {
    const runner = new ScriptRunner(t);
    assert.deepEqual(await runner.run(echo, ["k"], ["a"]), ["k", "a"]);
    await t.send(["SCRIPT", "FLUSH"]);
    assert.deepEqual(await runner.run(echo, ["k"], ["b"]), ["k", "b"]);
    // The fallback loaded it again: the plain EVALSHA now works.
    const sha = await runner.sha(echo);
    assert.deepEqual(await t.send(["SCRIPT", "EXISTS", sha]), [1]);
    await t.send(["SCRIPT", "FLUSH"]);
    const replies = await runner.runMany([1, 2, 3].map((i) => ({
      script: echo,
      keys: [`k${i}`],
      args: [String(i)],
    })));
    assert.deepEqual(replies, [["k1", "1"], ["k2", "2"], ["k3", "3"]]);
  });

  it("the Lua facts evaluate to the TypeScript values they are generated from", async () => {
    const values = LUA_FACTS.filter((f) => f.lua === undefined);
    const all = values.map((f) => `${f.name} = ${f.name}`).join(", ");
    const lua = JSON.parse(
      String(await t.send(["EVAL", `${generateFacts()}\nreturn cjson.encode({${all}})`, "0"])),
    );
    for (const f of values) {
      const v = f.value;
      const want = v instanceof Set ? Object.fromEntries([...v].map((s) => [s, true])) : v;
      assert.deepEqual(lua[f.name], want, f.name);
    }
  });

  it("readTask reads a task's head, the options it sends, and none it does not", async () => {
    const head = TASK_HEAD.map((f) => `v-${f}`);
    // The task's 2nd and last options, sent out of order, then no deps and no conditions.
    const argv = ["before", ...head, "2", String(TASK_OPTIONS.length), "cb", "2", "k", "0", "0"];
    const include = (name: string) =>
      readFileSync(`src/storage/redis/lua/includes/${name}.lua`, "utf8");
    const readTask = include("insert").split("local function setIf")[0];
    // readTask(ARGV, 2) in Redis: the task read and the index after it.
    const read = async (args: string[]) =>
      JSON.parse(String(
        await t.send([
          "EVAL",
          `${generateFacts()}\n${include("values")}\n${readTask}\n` +
          "local task, i = readTask(ARGV, 2)\nreturn cjson.encode({task, i})",
          "0",
          ...args,
        ]),
      ));
    const [task, next] = await read(argv);
    const want: Record<string, unknown> = Object.fromEntries([
      ...TASK_HEAD.map((f) => [f, `v-${f}`]),
      ...TASK_OPTIONS.map((f) => [f, ""]),
    ]);
    want.key = "k";
    want.callback = "cb";
    delete want.runAt; // "" reads as no runAt (nil)
    want.deps = {};
    want.conds = {};
    assert.deepEqual(task, want);
    assert.equal(next, argv.length + 1, "the index after the task");

    // A plain task (no option, no parent) is its head and "-": it reads as the head alone.
    const plain = ["before", ...head, "-", "after"];
    const [plainTask, after] = await read(plain);
    assert.deepEqual(plainTask, {
      ...Object.fromEntries(TASK_HEAD.map((f) => [f, `v-${f}`])),
      plain: true,
    });
    assert.equal(after, plain.length, "the index of what follows it");

    // At the head's defaults it is SHORT_HEAD and "=": it reads with those defaults.
    const short = ["before", ...SHORT_HEAD.map((f) => `v-${f}`), "=", "after"];
    const [shortTask, afterShort] = await read(short);
    assert.deepEqual(shortTask, {
      ...Object.fromEntries(SHORT_HEAD.map((f) => [f, `v-${f}`])),
      pool: DEFAULT_POOL,
      priority: "0",
      maxRetries: "0",
      plain: true,
    });
    assert.equal(afterShort, short.length, "the index of what follows it");
  });

  it("refuses a call with the wrong number of keys", async () => {
    await assert.rejects(new ScriptRunner(t).run(echo, [], []), /takes 1 keys, got 0/);
  });
});

describe("script return codes", () => {
  it("map to the error classes with the embedded store's messages", () => {
    assert.deepEqual(checkReply([Code.ok, "a", 1], "enqueue"), ["a", 1]);
    assert.throws(() => checkReply([Code.notFound], "cancel", "t1"), NotFoundError);
    assert.throws(
      () => checkReply([Code.idInUse, "t1"], "enqueue"),
      (e) => e instanceof ConflictError && e.message === 'Task id "t1" is already in use',
    );
    assert.throws(
      () => checkReply([Code.keyHeld, "k", "t0"], "enqueue"),
      (e) =>
        e instanceof ConflictError && e.activeId === "t0" &&
        /held by unfinished task "t0"/.test(e.message),
    );
    assert.throws(
      () => checkReply([Code.keyHeld, "k", ""], "enqueue"),
      (e) =>
        e instanceof ConflictError && e.activeId === undefined &&
        /earlier in this batch/.test(e.message),
    );
    assert.throws(
      () =>
        checkReply(
          [Code.unknownParent, "[1].dependsOn[0]", "p", "[1].onFailureOf", "q"],
          "enqueue",
        ),
      (e) =>
        e instanceof ValidationError &&
        e.issues.length === 2 &&
        e.issues[0].path === "[1].dependsOn[0]" &&
        e.issues[0].message === 'unknown task id "p"',
    );
    assert.throws(() => checkReply([Code.capacity, 5], "enqueue"), CapacityError);
    assert.throws(
      () => checkReply([Code.wrongStatus, "succeeded"], "cancel", "t1"),
      (e) => e instanceof ConflictError && e.message === 'Task "t1" already ended succeeded',
    );
    assert.throws(
      () => checkReply([Code.wrongStatus, "queued"], "resubmit", "t1"),
      /only dead, cancelled or expired tasks can be resubmitted/,
    );
    assert.throws(() => checkReply([Code.scheduleIdInUse], "putSchedule", "s"), ConflictError);
    assert.throws(() => checkReply("OK", "enqueue"), /Unexpected reply/);
  });
});
