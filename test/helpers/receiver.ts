/**
 * @module receiver — a local HTTP receiver for `http` tasks and callbacks: it records every
 * request (arrival time on the host's sub-millisecond wall clock, Skedulr's headers, the body)
 * and answers by the first path segment: `/ok/…` 200, `/fail/…` 500, `/hold/…` not until
 * `release()` (a delivery in flight) or while `holding` is false.
 */
import { createServer, type ServerResponse } from "node:http";

export interface Arrival {
  path: string;
  /** `performance.timeOrigin + performance.now()` when the request's body had arrived. */
  at: number;
  taskId: string;
  attempt: string;
  timestamp: string;
  signature: string;
  body: string;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  url: string;
  arrivals: Arrival[];
  /** Arrivals whose path is `path`. */
  at(path: string): Arrival[];
  /** Whether `/hold/…` requests are held (true) or answered at once. */
  holding: boolean;
  /** Answers every held request 200. */
  release(): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const arrivals: Arrival[] = [];
  const held: ServerResponse[] = [];
  const header = (h: string | string[] | undefined) => String(h ?? "");
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const path = req.url ?? "";
      arrivals.push({
        path,
        at: performance.timeOrigin + performance.now(),
        taskId: header(req.headers["skedulr-task-id"]),
        attempt: header(req.headers["skedulr-attempt"]),
        timestamp: header(req.headers["skedulr-timestamp"]),
        signature: header(req.headers["skedulr-signature"]),
        body,
      });
      if (path.startsWith("/fail/")) {
        res.statusCode = 500;
        res.end("receiver says no");
      } else if (path.startsWith("/hold/") && receiver.holding) held.push(res);
      else res.end("ok");
    });
  });
  // A held request whose client was killed must not take the test down.
  server.on("clientError", () => {});
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    at: (path) => arrivals.filter((a) => a.path === path),
    holding: true,
    release: () => {
      for (const res of held.splice(0)) {
        if (!res.destroyed) res.end("ok");
      }
    },
    close: () => {
      receiver.release();
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
  return receiver;
}
