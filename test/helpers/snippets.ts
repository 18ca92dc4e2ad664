/**
 * @module snippets — the runnable code blocks of a Markdown file, and what their comments
 * say they print.
 *
 * A ```sh (bash, shell) or ```python block runs unless the line before it (blank lines
 * aside) is a marker:
 * - `<!-- skip-test: reason -->`: not run here (a cloud account, minutes of benchmarks, a
 *   long-running node); the reason is printed by the test.
 * - `<!-- tested: name -->`: run by another test (test/e2e/package.test.ts).
 * - `<!-- test-server: url -->`: the block starts a server; it passes once `url` answers.
 *
 * A comment `# → text` says what the lines above it print: `text` must appear in the output,
 * after whatever the previous arrow matched, with `…` standing for anything on that line.
 */

export type Marker = { kind: "skip-test" | "tested" | "test-server"; value: string };

export interface Snippet {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: "sh" | "python";
  code: string;
  marker: Marker | null;
}

const LANGS: Record<string, Snippet["lang"]> = {
  sh: "sh",
  bash: "sh",
  shell: "sh",
  python: "python",
  py: "python",
};

const MARKER = /^<!--\s*(skip-test|tested|test-server):\s*(.*?)\s*-->$/;

/** Every fenced block of a runnable language, in document order. */
export function extractSnippets(file: string, markdown: string): Snippet[] {
  const lines = markdown.split("\n");
  const found: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```\s*([\w-]*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
    if (end < 0) throw new Error(`${file}:${i + 1}: a code fence that never closes`);
    const lang = LANGS[open[1].toLowerCase()];
    if (lang) {
      let k = i - 1;
      while (k >= 0 && lines[k].trim() === "") k--;
      const m = k >= 0 ? MARKER.exec(lines[k].trim()) : null;
      found.push({
        file,
        line: i + 1,
        lang,
        code: lines.slice(i + 1, end).join("\n") + "\n",
        marker: m ? { kind: m[1] as Marker["kind"], value: m[2] } : null,
      });
    }
    i = end;
  }
  return found;
}

/** The texts of a block's `# → …` comments, in order. */
export function arrows(code: string): string[] {
  return code.split("\n").flatMap((line) => {
    const m = /(?:^|\s)#\s*→\s*(.+?)\s*$/.exec(line);
    return m ? [m[1]] : [];
  });
}

/**
 * Checks each expected text against `output` in order; `…` matches anything within a
 * line. Returns the first one that is missing (null when all are there).
 */
export function missingArrow(output: string, expected: string[]): string | null {
  let from = 0;
  for (const text of expected) {
    const pattern = text.split("…").map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("[^\\n]*?");
    const re = new RegExp(pattern, "g");
    re.lastIndex = from;
    const m = re.exec(output);
    if (!m) return text;
    from = m.index + m[0].length;
  }
  return null;
}

/**
 * The docs name fixed ports (8080 the worker, 6379 Redis, 8079 the REST gateway); a test
 * must not use those of a developer's own services, so each becomes the one given here.
 */
export function withPorts(code: string, ports: Record<string, number>): string {
  return code.replace(
    /((?:127\.0\.0\.1|localhost):|PORT=)(\d{2,5})\b/g,
    (all, before: string, port: string) =>
      ports[port] === undefined ? all : `${before}${ports[port]}`,
  );
}
