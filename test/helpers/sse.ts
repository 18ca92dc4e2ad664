/**
 * @module sse — reads a Server-Sent Events response as the events arrive, for tests of
 * `GET /events`: each frame's event, id and data, comments counted.
 */
import type { TaskEvent } from "../../src/mod.ts";

export interface SseFrame {
  event: string;
  id?: string;
  data: string;
}

export interface SseReader {
  frames: SseFrame[];
  /** Comment lines seen (keep-alives). */
  comments(): number;
  /** True once the server ended the stream. */
  ended(): boolean;
  close(): Promise<void>;
}

/** Starts reading `res`'s body in the background; frames collect in `frames`. */
export function readSse(res: Response): SseReader {
  const frames: SseFrame[] = [];
  let comments = 0;
  let ended = false;
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const pump = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const frame: SseFrame = { event: "message", data: "" };
          const data: string[] = [];
          let fields = 0;
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) comments++;
            else if (line.startsWith("event: ")) (frame.event = line.slice(7), fields++);
            else if (line.startsWith("id: ")) (frame.id = line.slice(4), fields++);
            else if (line.startsWith("data: ")) (data.push(line.slice(6)), fields++);
            else if (line.startsWith("data:")) (data.push(line.slice(5)), fields++);
          }
          frame.data = data.join("\n");
          if (fields > 0) frames.push(frame);
        }
      }
    } catch { /* cancelled */ }
    ended = true;
  })();
  return {
    frames,
    comments: () => comments,
    ended: () => ended,
    async close() {
      await reader.cancel().catch(() => {});
      await pump;
    },
  };
}

/** The task events among `frames`, parsed. */
export function taskEventsOf(frames: SseFrame[]): TaskEvent[] {
  return frames.filter((f) => f.id !== undefined).map((f) => JSON.parse(f.data));
}
