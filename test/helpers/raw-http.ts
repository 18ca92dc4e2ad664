/**
 * @module raw-http — one HTTP/1.1 request written byte for byte on a TCP socket, so a test
 * controls every header (fetch rewrites `Host`), optionally from a chosen local address.
 */
import { connect } from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body = "",
  localAddress?: string,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, localAddress });
    let data = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (data += chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      const [head, ...rest] = data.split("\r\n\r\n");
      const [statusLine, ...lines] = head.split("\r\n");
      const fields: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(":");
        fields[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
      resolve({
        status: Number(statusLine.split(" ")[1]),
        headers: fields,
        body: rest.join("\r\n\r\n"),
      });
    });
    const lines = [`${method} ${path} HTTP/1.1`];
    for (
      const [k, v] of Object.entries({
        ...headers,
        "Content-Length": String(new TextEncoder().encode(body).length),
        Connection: "close",
      })
    ) {
      lines.push(`${k}: ${v}`);
    }
    socket.write(`${lines.join("\r\n")}\r\n\r\n${body}`);
  });
}
