/**
 * @module pinned-http — the `http` task type's client on Bun, Deno and Node: node:http(s)
 * `request` with a `lookup` hook that resolves the name, checks every address against the
 * outbound policy and hands the socket only addresses it allows. The address checked is the
 * address connected to, so a name cannot be re-pointed (DNS rebinding) between a check and
 * the connection, as it could with Web `fetch`, which resolves names itself. TLS still
 * verifies the certificate against the name (SNI included). All three runtimes call the hook
 * (checked on Bun 1.4, Deno 2.9, Node 20); none follows redirects here.
 */
import { lookup as dnsLookup } from "node:dns";
import { type IncomingMessage, request as httpRequest, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupAddress } from "node:dns";
import { PermanentError } from "../core/errors.ts";
import { ALLOW_HINT, type OutboundPolicy } from "../core/outbound-policy.ts";
import type { HttpFetcher, OutboundRequest, OutboundResponse } from "../worker/http-task.ts";

/** Resolves a name to every address it has (default: the system resolver, /etc/hosts included). */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

export interface PinnedFetchOptions {
  /** Replaces the system resolver (tests point a name at an address with it). */
  resolve?: Resolve;
  /** Extra trusted CA certificates (PEM) for https targets. */
  ca?: string | string[];
}

const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(addresses);
    });
  });

type LookupCallback = (
  error: Error | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for node:http that resolves `hostname` and passes on only the addresses the
 * policy allows; when it allows none, the error is a PermanentError naming each address.
 */
function checkedLookup(policy: OutboundPolicy, resolve: Resolve, refused: (e: Error) => void) {
  return (
    hostname: string,
    options: { family?: number; all?: boolean },
    callback: LookupCallback,
  ) => {
    resolve(hostname).then((found) => {
      const reasons: string[] = [];
      const allowed = found.filter((a) => {
        const why = policy.checkResolved(hostname, a.address);
        if (why) reasons.push(why);
        return why === null;
      });
      const family = options.family === 4 || options.family === 6 ? options.family : 0;
      const usable = allowed.filter((a) => family === 0 || a.family === family);
      if (found.length > 0 && allowed.length === 0) {
        const error = new PermanentError(
          `Refused by the outbound policy: ${reasons.join("; ")} (${ALLOW_HINT})`,
        );
        refused(error);
        callback(error, "");
      } else if (usable.length === 0) {
        const error = Object.assign(new Error(`${hostname}: no usable address`), {
          code: "ENOTFOUND",
        });
        callback(error, "");
      } else if (options.all) callback(null, usable);
      else callback(null, usable[0].address, usable[0].family);
    }, (error) => callback(error, ""));
  };
}

/**
 * A fetcher for `httpTaskHandler` that pins each connection to an address the policy
 * allows. One connection per request (no pool): a pooled socket would skip the check.
 *
 * @example
 * scheduler.register("http", httpTaskHandler({ policy, fetcher: pinnedFetcher() }), {
 *   payloadSchema: httpTaskPayloadSchema(policy),
 * });
 */
export function pinnedFetcher(options: PinnedFetchOptions = {}): HttpFetcher {
  const resolve = options.resolve ?? systemResolve;
  return (r: OutboundRequest) => {
    // The handler checked the target as written; checked here too for other callers.
    const written = r.policy.checkUrl(r.url);
    if (written) {
      return Promise.reject(
        new PermanentError(`Refused by the outbound policy: ${written} (${ALLOW_HINT})`),
      );
    }
    return send(r, resolve, options.ca);
  };
}

function send(
  r: OutboundRequest,
  resolve: Resolve,
  ca: string | string[] | undefined,
): Promise<OutboundResponse> {
  const https = r.url.protocol === "https:";
  const bytes = r.body === undefined ? undefined : new TextEncoder().encode(r.body);
  const headers: Record<string, string> = Object.fromEntries(r.headers);
  if (bytes) headers["content-length"] = String(bytes.byteLength);
  return new Promise<OutboundResponse>((settle, fail) => {
    let refused: Error | null = null;
    const options: RequestOptions & { ca?: string | string[] } = {
      hostname: r.url.hostname.replace(/^\[|\]$/g, ""),
      port: r.url.port || (https ? 443 : 80),
      path: `${r.url.pathname}${r.url.search}`,
      method: r.method,
      headers,
      agent: false,
      lookup: checkedLookup(r.policy, resolve, (e) => (refused = e)) as RequestOptions["lookup"],
      ...(https && ca ? { ca } : {}),
    };
    if (r.signal.aborted) return fail(r.signal.reason);
    const req = (https ? httpsRequest : httpRequest)(options, (res) => {
      r.signal.removeEventListener("abort", abort);
      settle({ status: res.statusCode ?? 0, body: webStream(res, r.signal) });
    });
    const abort = () => {
      req.destroy();
      fail(r.signal.reason);
    };
    r.signal.addEventListener("abort", abort, { once: true });
    req.once("error", (error) => {
      r.signal.removeEventListener("abort", abort);
      fail(refused ?? error);
    });
    req.end(bytes);
  });
}

/** The response body as a Web stream; an abort errors it with the signal's reason. */
function webStream(res: IncomingMessage, signal: AbortSignal): ReadableStream<Uint8Array> {
  let finished = false;
  let abort = () => {};
  const stop = () => {
    finished = true;
    signal.removeEventListener("abort", abort);
    res.destroy();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const end = (error?: unknown) => {
        if (finished) return;
        stop();
        if (error === undefined) controller.close();
        else controller.error(error);
      };
      abort = () => end(signal.reason);
      if (signal.aborted) return abort();
      signal.addEventListener("abort", abort, { once: true });
      res.on("data", (chunk: Uint8Array) => {
        if (finished) return;
        controller.enqueue(new Uint8Array(chunk));
        if ((controller.desiredSize ?? 1) <= 0) res.pause();
      });
      res.once("end", () => end());
      res.once("error", (error) => end(error));
      // After "end" this is a no-op; before it, the connection dropped mid-body.
      res.once("close", () => end(new Error("the connection closed before the response ended")));
    },
    pull() {
      res.resume();
    },
    cancel: stop,
  });
}

/** The pinned fetcher with the system resolver. */
export const pinnedFetch: HttpFetcher = pinnedFetcher();
