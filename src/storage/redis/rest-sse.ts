/**
 * @module rest-sse — one pub/sub channel over Upstash's SSE endpoint
 * (`POST <url>/subscribe/<channel>`), kept open across drops.
 *
 * `@upstash/redis`'s own `Subscriber` is not used: it never reports that its stream ended
 * (so nothing would re-open it), and it JSON-parses payloads, which the transport contract
 * hands over as the exact published text. This reader speaks the same wire format:
 *
 *   data: subscribe,<channel>,<count>      the server confirmed the subscription
 *   data: message,<channel>,<payload>      one published message (text, not base64)
 *   : ping                                 a keep-alive comment (the project's gateway)
 *
 * The payload is everything after `message,<channel>,`, so commas in the payload and in the
 * channel name are fine. Continuation `data:` lines of one event (a payload with line
 * breaks) are joined with "\n". Web-standard only (fetch, streams), so it runs on Workers.
 */

export interface SseChannelOptions {
  /** Base REST URL, without a trailing slash. */
  url: string;
  token: string;
  channel: string;
  onMessage(payload: string): void;
  /** Called after each confirmed (re)subscription; `reconnected` is false the first time. */
  onConnected?(reconnected: boolean): void;
  /** Called once per HTTP request opened (for request accounting). */
  onRequest?(): void;
  /** How long the first subscription may take before `ready` rejects (default 10 s). */
  connectTimeoutMs?: number;
  /**
   * Once the server has sent a keep-alive comment, a stream silent for this long is taken
   * as dead and re-opened (default 45 s; the gateway pings every 15 s).
   */
  idleMs?: number;
}

const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;
const TYPED = /^(subscribe|message|unsubscribe|psubscribe|pmessage|punsubscribe),/;

/** A subscription that re-opens its stream until {@link SseChannel.stop}. */
export class SseChannel {
  readonly #o: SseChannelOptions;
  #stopped = false;
  #abort: AbortController | null = null;
  #confirmed = false;
  #wake: (() => void) | null = null;
  #firstDeadline: ReturnType<typeof setTimeout> | undefined;
  /** Resolves at the first confirmation; rejects when the first attempt fails. */
  readonly ready: Promise<void>;
  #settle!: { resolve(): void; reject(error: Error): void };

  constructor(options: SseChannelOptions) {
    this.#o = options;
    this.ready = new Promise((resolve, reject) => (this.#settle = { resolve, reject }));
    this.ready.catch(() => {});
    this.#loop();
  }

  async #loop(): Promise<void> {
    let delay = RETRY_MIN_MS;
    const timeoutMs = this.#o.connectTimeoutMs ?? 10_000;
    this.#firstDeadline = setTimeout(() => {
      if (!this.#confirmed) {
        this.#fail(new Error(`no subscription confirmation within ${timeoutMs} ms`));
      }
    }, timeoutMs);
    while (!this.#stopped) {
      try {
        const wasConfirmed = this.#confirmed;
        await this.#open();
        if (this.#confirmed && !wasConfirmed) delay = RETRY_MIN_MS;
      } catch (error) {
        if (this.#stopped) break;
        if (!this.#confirmed) {
          this.#fail(error as Error);
          break;
        }
      }
      if (this.#stopped) break;
      // The stream ended or failed after working once: re-open with back-off.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = null;
      delay = Math.min(RETRY_MAX_MS, delay * 2);
    }
    clearTimeout(this.#firstDeadline);
  }

  #fail(error: Error): void {
    const { url, channel } = this.#o;
    this.#settle.reject(
      new Error(`Subscribing to ${channel} at ${url}/subscribe failed: ${error.message}`, {
        cause: error,
      }),
    );
    this.stop();
  }

  /** One stream, read until it ends; throws when it cannot be opened. */
  async #open(): Promise<void> {
    const { url, token, channel } = this.#o;
    const abort = new AbortController();
    this.#abort = abort;
    this.#o.onRequest?.();
    const res = await fetch(`${url}/subscribe/${encodeURIComponent(channel)}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        accept: "text/event-stream",
        "content-type": "application/json",
      },
      body: "[]",
      signal: abort.signal,
      cache: "no-store",
    });
    if (!res.ok || !res.body) {
      const text = await res.text().catch(() => "");
      throw new Error(`HTTP ${res.status} ${text.slice(0, 200)}`);
    }
    await this.#read(res.body, abort);
  }

  async #read(body: ReadableStream<Uint8Array>, abort: AbortController): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    const idleMs = this.#o.idleMs ?? 45_000;
    let pinged = false;
    let idle: ReturnType<typeof setTimeout> | undefined;
    let buffer = "";
    let pending: string[] | null = null;
    const flush = () => {
      if (pending) this.#dispatch(pending.join("\n"));
      pending = null;
    };
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (pinged) {
          clearTimeout(idle);
          idle = setTimeout(() => abort.abort(new Error("stream idle")), idleMs);
        }
        buffer += decoder.decode(value, { stream: true });
        const lines = buffer.split(/\r\n|\r|\n/);
        buffer = lines.pop() ?? "";
        for (const line of lines) {
          if (line === "") flush();
          else if (line.startsWith(":")) {
            flush();
            pinged = true;
          } else if (line.startsWith("data:")) {
            const data = line.slice(line.startsWith("data: ") ? 6 : 5);
            if (pending && !TYPED.test(data)) pending.push(data);
            else {
              flush();
              pending = [data];
            }
          }
        }
        // Servers that omit the blank line still get each event delivered per chunk.
        flush();
      }
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    } finally {
      clearTimeout(idle);
      reader.cancel().catch(() => {});
    }
  }

  #dispatch(data: string): void {
    const { channel } = this.#o;
    const message = `message,${channel},`;
    if (data.startsWith(message)) {
      this.#o.onMessage(data.slice(message.length));
    } else if (data.startsWith(`subscribe,${channel},`)) {
      const reconnected = this.#confirmed;
      this.#confirmed = true;
      clearTimeout(this.#firstDeadline);
      this.#settle.resolve();
      this.#o.onConnected?.(reconnected);
    }
  }

  /** Closes the stream for good. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#firstDeadline);
    this.#abort?.abort();
    this.#wake?.();
  }
}
