/**
 * Without SKEDULR_TOKEN the worker listens on 127.0.0.1 only: from another interface of the
 * same machine the port is closed. With a token it listens on every interface. Real
 * `bun scripts/entry/worker.ts` processes, as `npm run worker` starts them.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { networkInterfaces } from "node:os";
import { ready, startWorker } from "../../scripts/tools/worker-process.ts";

/** An IPv4 address of this machine that is not loopback. */
function outwardAddress(): string | undefined {
  return Object.values(networkInterfaces()).flat()
    .find((a) => a && a.family === "IPv4" && !a.internal)?.address;
}

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect(port, host);
    sock.once("connect", () => {
      sock.destroy();
      resolve(true);
    });
    sock.once("error", () => resolve(false));
  });
}

const outward = outwardAddress();

describe("the worker's listening address", () => {
  it("without a token: 127.0.0.1 only", { skip: !outward && "no non-loopback IPv4" }, async () => {
    const w = await ready(await startWorker({}));
    try {
      const port = Number(new URL(w.url).port);
      assert.equal(await accepts("127.0.0.1", port), true);
      assert.equal(await accepts(outward!, port), false, `closed on ${outward}`);
      assert.match(w.output(), /listening on 127\.0\.0\.1 only/);
    } finally {
      await w.stop();
    }
  });

  it("with a token: every interface", { skip: !outward && "no non-loopback IPv4" }, async () => {
    const w = await ready(await startWorker({ SKEDULR_TOKEN: "binding-test-token-0123456789" }));
    try {
      assert.equal(await accepts(outward!, Number(new URL(w.url).port)), true);
    } finally {
      await w.stop();
    }
  });
});
