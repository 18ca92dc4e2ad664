/**
 * @module resp — a minimal RESP2 connection for the REST gateway.
 *
 * The gateway must hand back bulk strings byte for byte (base64 of the raw bytes), so it
 * cannot use a client that decodes replies to JS strings (Bun's `RedisClient`, ioredis
 * without `callBuffer`). This speaks RESP2 over `node:net`, which works on Bun and Deno
 * alike, and keeps bulk strings as bytes ({@link Bulk}). Replies come back in command
 * order, so a batch written in one `write` is never interleaved with another request's
 * commands: that is what makes `/multi-exec` (MULTI ... EXEC written at once) atomic on a
 * shared socket.
 */
import { Buffer } from "node:buffer";
import { connect, type Socket } from "node:net";

/** A RESP2 reply: bulk strings as bytes, simple strings as text, errors as {@link RespError}. */
export type RespValue = Bulk | string | number | null | RespError | RespValue[];

/**
 * A bulk string: its bytes where the parser read them. Encoded straight from that buffer
 * (no view or copy per string: those were the gateway's largest cost).
 */
export class Bulk {
  constructor(readonly buf: Buffer, readonly start: number, readonly end: number) {}
  text(): string {
    return this.buf.toString("utf8", this.start, this.end);
  }
  base64(): string {
    return this.buf.toString("base64", this.start, this.end);
  }
}

/** An error reply (`-ERR ...`). */
export class RespError {
  constructor(readonly message: string) {}
}

const decoder = new TextDecoder();

/**
 * Encodes commands as RESP arrays of bulk strings, in one string to write as UTF-8 with
 * `Buffer.from`, which counts a lone surrogate as `Buffer.byteLength` does (U+FFFD, 3 bytes).
 */
export function encodeCommands(cmds: string[][]): string {
  let out = "";
  for (const cmd of cmds) {
    out += `*${cmd.length}\r\n`;
    for (const arg of cmd) out += `$${Buffer.byteLength(arg, "utf8")}\r\n${arg}\r\n`;
  }
  return out;
}

/** Incremental RESP2 parser: feed bytes, take complete replies. */
export class RespParser {
  #buf: Buffer = Buffer.alloc(0);
  #pos = 0;

  feed(data: Uint8Array): RespValue[] {
    const chunk = Buffer.isBuffer(data)
      ? data
      : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    this.#buf = this.#pos < this.#buf.length
      ? Buffer.concat([this.#buf.subarray(this.#pos), chunk])
      : chunk;
    this.#pos = 0;
    const out: RespValue[] = [];
    for (;;) {
      const start = this.#pos;
      const value = this.#read();
      if (value === undefined) {
        this.#pos = start; // incomplete: wait for more bytes
        return out;
      }
      out.push(value);
    }
  }

  /** The end of the line at `#pos` (its CR), or -1 while it is incomplete. */
  #lineEnd(): number {
    const buf = this.#buf;
    for (let i = this.#pos; i + 1 < buf.length; i++) {
      if (buf[i] === 13 && buf[i + 1] === 10) return i;
    }
    return -1;
  }

  /** The line at `#pos` as text (simple strings, errors), past its CRLF. */
  #text(end: number): string {
    const line = decoder.decode(this.#buf.subarray(this.#pos, end));
    this.#pos = end + 2;
    return line;
  }

  /** The line at `#pos` as an integer (lengths, integer replies), read off its digits. */
  #integer(end: number): number {
    const buf = this.#buf;
    let i = this.#pos;
    const negative = buf[i] === 45;
    if (negative) i++;
    let n = 0;
    for (; i < end; i++) {
      const digit = buf[i] - 48;
      if (digit < 0 || digit > 9) throw new Error("RESP: a malformed integer line");
      n = n * 10 + digit;
    }
    this.#pos = end + 2;
    return negative ? -n : n;
  }

  #read(): RespValue | undefined {
    if (this.#pos >= this.#buf.length) return undefined;
    const type = this.#buf[this.#pos++];
    const end = this.#lineEnd();
    if (end < 0) return undefined;
    switch (type) {
      case 43: // +
        return this.#text(end);
      case 45: // -
        return new RespError(this.#text(end));
      case 58: // :
        return this.#integer(end);
      case 36: { // $
        const len = this.#integer(end);
        if (len < 0) return null;
        if (this.#pos + len + 2 > this.#buf.length) return undefined;
        // Each chunk is a buffer of its own, never written again: the reply can point into it.
        const bulk = new Bulk(this.#buf, this.#pos, this.#pos + len);
        this.#pos += len + 2;
        return bulk;
      }
      case 42: { // *
        const len = this.#integer(end);
        if (len < 0) return null;
        const items: RespValue[] = [];
        for (let i = 0; i < len; i++) {
          const item = this.#read();
          if (item === undefined) return undefined;
          items.push(item);
        }
        return items;
      }
      default:
        throw new Error(`RESP: unexpected type byte ${type} (is this a Redis server?)`);
    }
  }
}

interface Waiter {
  resolve(value: RespValue): void;
  reject(error: Error): void;
}

/**
 * One RESP2 connection, pipelining every command sent on it. Rejects pending and new
 * commands once the socket is gone; the gateway then opens a new one.
 */
export class RespConnection {
  readonly #socket: Socket;
  readonly #parser = new RespParser();
  readonly #waiters: Waiter[] = [];
  #closed: Error | null = null;
  readonly ready: Promise<void>;
  /** Unsolicited replies (pub/sub pushes) once {@link RespConnection.onPush} is set. */
  onPush: ((value: RespValue) => void) | null = null;
  /** Called once when the socket ends or fails. */
  onClose: ((error: Error) => void) | null = null;

  constructor(host: string, port: number) {
    this.#socket = connect(port, host);
    this.#socket.setNoDelay(true);
    this.ready = new Promise((resolve, reject) => {
      this.#socket.once("connect", () => resolve());
      this.#socket.once("error", reject);
    });
    this.ready.catch(() => {});
    this.#socket.on("data", (chunk: Uint8Array) => {
      let values: RespValue[];
      try {
        values = this.#parser.feed(chunk);
      } catch (error) {
        this.#fail(error as Error);
        return;
      }
      for (const v of values) {
        const w = this.#waiters.shift();
        if (w) w.resolve(v);
        else this.onPush?.(v);
      }
    });
    this.#socket.on("error", (error: Error) => this.#fail(error));
    this.#socket.on("close", () => this.#fail(new Error("Redis connection closed")));
  }

  get closed(): boolean {
    return this.#closed !== null;
  }

  #fail(error: Error): void {
    if (this.#closed) return;
    this.#closed = error;
    for (const w of this.#waiters.splice(0)) w.reject(error);
    this.#socket.destroy();
    this.onClose?.(error);
  }

  /** Writes every command at once and resolves with their replies, in order. */
  sendMany(cmds: string[][]): Promise<RespValue[]> {
    if (this.#closed) return Promise.reject(this.#closed);
    const replies = cmds.map(() =>
      new Promise<RespValue>((resolve, reject) => this.#waiters.push({ resolve, reject }))
    );
    this.#socket.write(Buffer.from(encodeCommands(cmds), "utf8"));
    return Promise.all(replies);
  }

  async send(cmd: string[]): Promise<RespValue> {
    return (await this.sendMany([cmd]))[0];
  }

  /** Writes a command whose replies arrive as pushes (SUBSCRIBE): no waiter is queued. */
  write(cmd: string[]): void {
    if (!this.#closed) this.#socket.write(Buffer.from(encodeCommands([cmd]), "utf8"));
  }

  close(): void {
    this.#fail(new Error("Redis connection closed by the gateway"));
  }
}

/** Opens a connection to a `redis://[:password@]host:port[/db]` URL, authenticated and on its db. */
export async function openResp(url: string): Promise<RespConnection> {
  const u = new URL(url);
  const conn = new RespConnection(u.hostname || "127.0.0.1", Number(u.port || 6379));
  await conn.ready;
  const setup: string[][] = [];
  const password = decodeURIComponent(u.password);
  if (password) {
    setup.push(
      u.username ? ["AUTH", decodeURIComponent(u.username), password] : [
        "AUTH",
        password,
      ],
    );
  }
  const db = u.pathname.replace(/^\//, "");
  if (db) setup.push(["SELECT", db]);
  if (setup.length) {
    for (const reply of await conn.sendMany(setup)) {
      if (reply instanceof RespError) {
        conn.close();
        throw new Error(`Redis refused the connection setup: ${reply.message}`);
      }
    }
  }
  return conn;
}
