/**
 * @module cli/main — the API commands of `skedulr` (scripts/entry/cli.ts dispatches here):
 * parse the options, run one command, turn every failure into a message on stderr and an
 * exit code a script can branch on. Runs the same on Bun, Deno and Node (the npm bin).
 */
import process from "node:process";
import { text } from "node:stream/consumers";
import { parseArgs } from "node:util";
import { CliError, createApi, DEFAULT_URL, EXIT } from "./api.ts";
import type { Command, Context } from "./command.ts";
import { cancel, dead, get, list, resubmit, submit } from "./tasks.ts";
import { pause, resume, schedules, stats } from "./admin.ts";
import { logs } from "./logs.ts";

const ALL = [submit, get, logs, list, dead, cancel, resubmit, stats, pause, resume, schedules];
export const COMMANDS: ReadonlyMap<string, Command> = new Map(ALL.map((c) => [c.name, c]));

/** The API commands' part of `skedulr --help`. */
export function apiHelp(): string {
  const width = Math.max(...[...COMMANDS.keys()].map((n) => n.length));
  const lines = [...COMMANDS.values()].map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `Commands over the HTTP API of a running node (\`skedulr <command> --help\` for each):
${lines.join("\n")}

  SKEDULR_URL      the node, default ${DEFAULT_URL}
  SKEDULR_API_KEY  bearer credential when the node has SKEDULR_TOKEN or SKEDULR_KEYS
  --json           print the API's answer as JSON (one line) instead of a table

Exit codes: 0 ok; 1 bad arguments or input (nothing sent); 2 the API refused the request
(4xx: unknown id, wrong status, bad spec, missing role); 3 the server failed (5xx, e.g. its
storage is down: retry later); 4 no answer (unreachable, or none within 30 s);
5 --wait: the task ended dead, cancelled or expired; 6 --wait: still unfinished at
--timeout.`;
}

const COMMON = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** Runs `skedulr <name> ...argv` and returns its exit code; never throws. */
export async function runCommand(name: string, argv: string[]): Promise<number> {
  const command = COMMANDS.get(name);
  const say = (stream: NodeJS.WriteStream, text: string): void => {
    stream.write(`${text}\n`);
  };
  if (!command) {
    say(process.stderr, `skedulr: unknown command ${JSON.stringify(name)}\n\n${apiHelp()}`);
    return EXIT.usage;
  }
  try {
    let parsed;
    try {
      parsed = parseArgs({
        args: argv,
        options: { ...COMMON, ...command.options },
        allowPositionals: true,
        strict: true,
      });
    } catch (error) {
      throw new CliError(`${(error as Error).message}\n\n${command.help}`, EXIT.usage);
    }
    if (parsed.values.help) {
      say(process.stdout, command.help);
      return EXIT.ok;
    }
    const [min, max] = command.positionals;
    const n = parsed.positionals.length;
    if (n < min || n > max) {
      const want = min === max ? `${min}` : `${min} to ${max}`;
      throw new CliError(`expected ${want} argument(s), got ${n}\n\n${command.help}`, EXIT.usage);
    }
    const ctx: Context = {
      api: createApi(process.env),
      args: parsed.positionals,
      opts: parsed.values as Context["opts"],
      json: Boolean(parsed.values.json),
      out: (text) => say(process.stdout, text),
      note: (text) => say(process.stderr, text),
      stdin: async () => (process.stdin.isTTY ? null : await text(process.stdin)),
    };
    const code = await command.run(ctx);
    return typeof code === "number" ? code : EXIT.ok;
  } catch (error) {
    if (error instanceof CliError) {
      say(process.stderr, `skedulr ${name}: ${error.message}`);
      return error.exitCode;
    }
    say(process.stderr, `skedulr ${name}: ${(error as Error)?.stack ?? error}`);
    return EXIT.usage;
  }
}
