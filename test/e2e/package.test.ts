/**
 * @module package.test — the npm package as users get it.
 *
 * `npm pack` (its `prepack` builds dist/) makes the tarball; a fresh project in a temporary
 * directory installs it, with no path back to the repository's sources. From there the
 * README's library snippets run on Node and on Bun, on the embedded store and on a
 * throwaway Redis; a consumer is type-checked against the installed declarations; the Deno
 * snippet runs against the files `deno publish --dry-run` lists for JSR; `npx skedulr worker`
 * answers /skedulr/healthz, runs a task over Redis and stops on SIGTERM. The sizes the
 * README quotes are printed.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import {
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import {
  freePort,
  type RedisServerHandle,
  startRedisServer,
} from "../../scripts/tools/redis-server.ts";
import { eventually } from "../../scripts/tools/wait.ts";

const REPO = resolve(import.meta.dirname ?? dirname(new URL(import.meta.url).pathname), "../..");
const TOOLS = join(REPO, "node_modules/.bin"); // bun, deno, tsc: tools, not sources
/** The environment of every child: no REDIS_URL of the test run, no colours to parse. */
const ENV: Record<string, string> = { ...process.env as Record<string, string>, NO_COLOR: "1" };
delete ENV.REDIS_URL;

interface Ran {
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  return new Promise<Ran>((done, fail) => {
    const options = { cwd, env: { ...ENV, ...env }, timeout: 60_000, maxBuffer: 64 << 20 };
    execFile(cmd, args, options, (error, stdout, stderr) => {
      if (!error) return done({ stdout, stderr });
      fail(new Error(`${cmd} ${args.join(" ")} (in ${cwd}): ${error.message}\n${stdout}${stderr}`));
    });
  });
}

/** The README snippet marked `<!-- tested: name -->`. */
function snippet(name: string): string {
  const readme = readFileSync(join(REPO, "README.md"), "utf8");
  const found = readme.match(
    new RegExp(`<!-- tested: ${name} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\`\`\``),
  );
  assert.ok(found, `README.md has no snippet marked <!-- tested: ${name} -->`);
  return found[1];
}

describe("the npm package, installed from its tarball", () => {
  let dir: string;
  let redis: RedisServerHandle;
  let files: string[];

  // Packing and installing run in a test, not in `before`: Bun ignores a hook's own timeout
  // and the default would cut a slow `npm install`. `before` only starts it.
  let ready: Promise<void>;
  const setUp = async () => {
    redis = await startRedisServer();
    dir = mkdtempSync(join(tmpdir(), "skedulr-package-"));
    const packed = await run("npm", ["pack", "--json", "--pack-destination", dir], REPO);
    // prepack's build may print before npm's JSON: the JSON is the last top-level array.
    const report = JSON.parse(packed.stdout.slice(packed.stdout.lastIndexOf("\n[") + 1))[0];
    files = report.files.map((f: { path: string }) => f.path);
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ name: "skedulr-user", private: true, type: "module" }),
    );
    const tarball = join(dir, report.filename);
    await run("npm", ["install", tarball, "--no-audit", "--no-fund", "--prefer-offline"], dir);
    console.log(`package: ${sizes(report, join(dir, "node_modules"))}`);
    // 479 kB at 0.2.0; task events, logs, callbacks, the function libraries' assembler,
    // partitions with the cluster transport and the edge deliverer took it to 714 kB, data
    // layouts 4 and 5 to 761 kB, the embedded store's bounded reads to 784 kB: the bound
    // moves with them, and still catches a bundle shipped twice (the source and the generated
    // Lua in both forms each add more than 50 kB).
    assert.ok(report.size < 800_000, `the tarball is ${report.size} bytes packed (goal < 800 KB)`);
  };
  before(() => {
    ready = setUp();
    ready.catch(() => {}); // reported by the first test
  });

  it("packs and installs the tarball into a fresh project", { timeout: 180_000 }, () => ready);

  after(async () => {
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("ships built JavaScript, declarations, maps and the sources Bun takes; nothing else", async () => {
    await ready;
    for (const file of ["dist/src/mod.js", "dist/src/mod.d.ts", "dist/src/mod.js.map"]) {
      assert.ok(files.includes(file), `${file} is in the tarball`);
    }
    assert.ok(files.includes("src/mod.ts"), "the bun condition's sources are in the tarball");
    assert.ok(files.includes("dist/scripts/entry/cli.js"), "the bin is in the tarball");
    const stray = files.filter((f) =>
      /^(test|docs|scripts|routes)\//.test(f) || /\.(lua|test\.ts)$/.test(f) ||
      /^dist\/(scripts|routes)\/.*\.(d\.ts|map)$/.test(f)
    );
    assert.deepEqual(stray, [], "no tests, docs, dev scripts, Lua sources or bin-only types");
    const pkg = JSON.parse(readFileSync(join(dir, "node_modules/skedulr/package.json"), "utf8"));
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      const paths = typeof target === "string" ? [target] : Object.values(target as object);
      for (const path of paths) {
        assert.ok(files.includes(path.replace(/^\.\//, "")), `${subpath} → ${path} is shipped`);
      }
    }
  });

  it("runs the README's Node snippet on Node, on the embedded store and on Redis", async () => {
    await ready;
    const resolved = await run("node", ["--input-type=module", "-e", PROBE], dir);
    assert.match(
      resolved.stdout,
      /^node v(2\d|[3-9]\d)\..* .*\/node_modules\/skedulr\/dist\/src\/mod\.js$/m,
    );
    writeFileSync(join(dir, "app.mjs"), snippet("node"));
    const embedded = await run("node", ["app.mjs"], dir);
    assert.match(embedded.stdout, /^succeeded hello Node$/m);
    const shared = await run("node", ["app.mjs"], dir, { REDIS_URL: redis.url });
    assert.match(shared.stdout, /^succeeded hello Node$/m);
  });

  it("type-checks a consumer against the installed declarations (tsc, nodenext)", async () => {
    await ready;
    writeFileSync(join(dir, "consumer.ts"), CONSUMER);
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({ compilerOptions: TSC_OPTIONS, files: ["consumer.ts"] }),
    );
    await run(join(TOOLS, "tsc"), ["-p", "tsconfig.json"], dir);
  });

  it("runs the README's Bun snippet from the same tarball, on the TypeScript sources", async () => {
    await ready;
    const bun = join(TOOLS, "bun");
    const resolved = await run(bun, ["-e", `console.log(import.meta.resolve("skedulr"))`], dir);
    assert.match(resolved.stdout, /\/node_modules\/skedulr\/src\/mod\.ts$/m);
    writeFileSync(join(dir, "app-bun.ts"), snippet("bun"));
    assert.match((await run(bun, ["app-bun.ts"], dir)).stdout, /^succeeded hello Bun$/m);
    const shared = await run(bun, ["app-bun.ts"], dir, { REDIS_URL: redis.url });
    assert.match(shared.stdout, /^succeeded hello Bun$/m);
  });

  it("runs the README's Deno snippet on what `deno publish` would upload to JSR", async () => {
    await ready;
    const deno = join(TOOLS, "deno");
    // Slow types are allowed (see the `publish` task in deno.json for why).
    const dry = await run(
      deno,
      ["publish", "--dry-run", "--allow-dirty", "--allow-slow-types"],
      REPO,
    );
    const out = dry.stdout + dry.stderr;
    assert.match(out, /Dry run complete/);
    const uploaded = [...out.matchAll(/file:\/\/(\S+) \(/g)].map((m) => m[1]);
    assert.ok(uploaded.includes(join(REPO, "src/mod.ts")), out);
    for (const file of uploaded) {
      mkdirSync(dirname(join(dir, "jsr", relative(REPO, file))), { recursive: true });
      cpSync(file, join(dir, "jsr", relative(REPO, file)));
    }
    writeFileSync(join(dir, "deno.json"), JSON.stringify(jsrImportMap()));
    writeFileSync(join(dir, "app-deno.ts"), snippet("deno"));
    const args = ["run", "--allow-net", "--allow-env", "app-deno.ts"];
    assert.match((await run(deno, args, dir)).stdout, /^succeeded hello Deno$/m);
    const shared = await run(deno, args, dir, { REDIS_URL: redis.url });
    assert.match(shared.stdout, /^succeeded hello Deno$/m);
  });

  it("npx skedulr worker answers /skedulr/healthz, runs a task over Redis, stops on SIGTERM", async () => {
    await ready;
    writeFileSync(join(dir, "jobs.mjs"), `export default { greet: (p) => "hello " + p.name };\n`);
    const port = await freePort();
    const child = spawn("npx", ["skedulr", "worker"], {
      cwd: dir,
      env: {
        ...ENV,
        PORT: String(port),
        REDIS_URL: redis.url,
        SKEDULR_PREFIX: "npx-worker",
        SKEDULR_JOBS: "./jobs.mjs",
        SKEDULR_DEMO: "0",
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // its own process group, so cleanup can reach the worker under npx
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    // The worker shares npx's pipes: they close once the worker itself has exited.
    let closed = false;
    child.stdout.once("close", () => (closed = true));
    const base = `http://127.0.0.1:${port}/skedulr`;
    try {
      const health = await eventually(
        async () => {
          if (child.exitCode !== null) throw new Error(`npx exited ${child.exitCode}: ${output}`);
          const r = await fetch(`${base}/healthz`).catch(() => null);
          return r?.ok ? await r.json() : null;
        },
        "npx skedulr worker to answer /skedulr/healthz",
        20_000,
      );
      assert.equal(health.ok, true);
      const created = await fetch(`${base}/api/tasks`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ type: "greet", payload: { name: "npx" } }),
      });
      assert.equal(created.status, 201);
      const { id } = await created.json();
      const task = await eventually(
        async () => {
          const t = await (await fetch(`${base}/api/tasks/${id}`)).json();
          return t.status === "succeeded" ? t : null;
        },
        `task ${id} to succeed`,
        10_000,
      );
      assert.equal(task.result, "hello npx");
      // A supervisor signals the process it started: npx, not the worker behind it.
      child.kill("SIGTERM");
      await eventually(() => closed, "the worker to exit after SIGTERM to npx", 15_000);
    } finally {
      try {
        process.kill(-child.pid!, "SIGKILL"); // whatever is left of the group after a failure
      } catch { /* all gone */ }
    }
    assert.match(output, /SIGTERM: draining[\s\S]*\nstopped\n/, output);
  });
});

/** The figures the README quotes: packed, unpacked, and installed with the dependencies. */
function sizes(report: { size: number; unpackedSize: number }, nodeModules: string): string {
  let bytes = 0;
  let packages = 0;
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) walk(child);
      else bytes += lstatSync(child).size;
      if (entry.name === "package.json" && /node_modules\/(@[^/]+\/)?[^/@]+$/.test(path)) {
        packages++;
      }
    }
  };
  walk(nodeModules);
  const kb = (n: number) => `${(n / 1000).toFixed(1)} kB`;
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  return `${kb(report.size)} packed, ${mb(report.unpackedSize)} unpacked; installed with its ` +
    `dependencies ${mb(bytes)} in node_modules (${packages} packages)`;
}

/** Prints the runtime and where `skedulr` resolves from the temporary project. */
const PROBE = "console.log(`node ${process.version} ${import.meta.resolve('skedulr')}`)";

const TSC_OPTIONS = {
  module: "nodenext",
  target: "es2022",
  strict: true,
  noEmit: true,
  lib: ["es2023", "dom"],
  types: [],
};

/** Real types, not `any`: the expected error must occur, or tsc reports the directive. */
const CONSUMER = `import { type AttemptRecord, Scheduler } from "skedulr";
import { RedisStorage } from "skedulr/redis";
import { connectRedisTcp } from "skedulr/redis-tcp";
import { TimingWheel } from "skedulr/wheel";

const storage = new RedisStorage({ transport: connectRedisTcp("redis://127.0.0.1:6379") });
const s = new Scheduler({ storage, pools: { default: 2 } });
s.register("greet", (payload: { name: string }) => \`hello \${payload.name}\`);
const id: Promise<string> = s.submit({ type: "greet", payload: { name: "x" } });
const stop: () => void = s.onResult((r: AttemptRecord) => r.status);
// @ts-expect-error a task spec needs a type
s.submit({ payload: 1 });
export { id, stop, TimingWheel };
`;

/**
 * deno.json for the temporary project: each `jsr:` export of deno.json maps to the copied
 * JSR files, and each bare dependency to `npm:name@range`, which is how JSR rewrites them.
 */
function jsrImportMap(): { imports: Record<string, string> } {
  const denoJson = JSON.parse(readFileSync(join(REPO, "deno.json"), "utf8"));
  const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));
  const imports: Record<string, string> = {};
  for (const [subpath, file] of Object.entries(denoJson.exports as Record<string, string>)) {
    imports[`jsr:${denoJson.name}${subpath.slice(1)}`] = `./jsr/${file.replace(/^\.\//, "")}`;
  }
  for (const [name, range] of Object.entries(pkg.dependencies as Record<string, string>)) {
    imports[name] = `npm:${name}@${range}`;
    imports[`${name}/`] = `npm:${name}@${range}/`;
  }
  return { imports };
}
