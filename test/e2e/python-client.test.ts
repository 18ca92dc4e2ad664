/**
 * @module python-client.test — clients/python/skedulr.py against a live `bun scripts/entry/worker.ts`
 * (embedded store, the default jobs module, a token, signed `http` tasks allowed to reach
 * 127.0.0.1): runs clients/python/test_skedulr.py with python3 and the standard library only.
 *
 * No python3 is a failure with the way to install it, never a silent pass: `.ci/run` installs
 * it when missing.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { ready, startWorker, type WorkerProcess } from "../../scripts/tools/worker-process.ts";

const TOKEN = "python-client-token-0123456789";
const SIGNING_KEY = "python-client-signing-key";

describe("the Python client (clients/python) against a live worker", () => {
  let w: WorkerProcess;
  before(async () => {
    const python = spawnSync("python3", ["--version"], { encoding: "utf8" });
    if (python.error || python.status !== 0) {
      throw new Error("python3 was not found: `apt-get install -y python3` (.ci/run does)");
    }
    w = await ready(
      await startWorker({
        SKEDULR_TOKEN: TOKEN,
        SKEDULR_SIGNING_KEY: SIGNING_KEY,
        SKEDULR_HTTP_ALLOW: "127.0.0.1",
        SKEDULR_POOLS: "default=4,critical=2",
        SKEDULR_SHUTDOWN_TIMEOUT: "1s",
      }),
    );
  }, { timeout: 60_000 });
  after(async () => {
    await w?.stop();
  });

  it("python3 -m unittest test_skedulr: every test runs and passes, none skipped", {
    timeout: 120_000,
  }, async () => {
    const started = Date.now();
    const { code, stdout, stderr } = await new Promise<
      { code: number | null; stdout: string; stderr: string }
    >((resolve) => {
      execFile(
        "python3",
        ["-m", "unittest", "-v", "test_skedulr"],
        {
          cwd: "clients/python",
          timeout: 120_000,
          env: {
            ...process.env,
            SKEDULR_URL: w.url.replace(/\/skedulr$/, ""),
            SKEDULR_API_KEY: TOKEN,
            SKEDULR_TEST_SIGNING_KEY: SIGNING_KEY,
            PYTHONDONTWRITEBYTECODE: "1", // no __pycache__ left in the tree
          },
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? (error.code as number) ?? 1 : 0, stdout, stderr }),
      );
    });
    const report = `${stdout}${stderr}\n--- worker ---\n${w.output()}`;
    assert.equal(code, 0, report);
    assert.match(stderr, /^OK$/m, report);
    assert.doesNotMatch(stderr, /skipped/, `a live test was skipped:\n${report}`);
    const ran = Number(/Ran (\d+) tests?/.exec(stderr)?.[1]);
    assert.ok(ran >= 13, `expected every test to run, ran ${ran}`);
    console.log(`python client: ${ran} tests in ${Date.now() - started} ms`);
  });
});
