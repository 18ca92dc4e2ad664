/**
 * @module stack-paths — what a task keeps of an error's stack: its frames with absolute paths
 * made relative to the app's root (or cut to the file name), or nothing at all.
 *
 * Task errors are readable through the API and the dashboard by anyone who may read tasks;
 * absolute paths would tell them the server's layout (home directories, user names, install
 * locations). A Web-standard core cannot read the working directory, so the entry script
 * passes it in ({@link configureErrorStacks}); until then paths are cut to the file name.
 */

/** How stacks are kept: `keep: false` drops them; `root` is the directory paths are made relative to. */
export interface ErrorStackPolicy {
  keep: boolean;
  root: string | null;
}

let policy: ErrorStackPolicy = { keep: true, root: null };

/**
 * Sets how every task error of this process keeps its stack (process-wide, like the working
 * directory it usually names); returns the previous policy.
 *
 * @example
 * configureErrorStacks({ root: "/srv/app" });   // "at f (src/jobs.ts:10:5)" for /srv/app/src/jobs.ts
 * configureErrorStacks({ keep: false });         // no stacks (SKEDULR_ERROR_STACKS=0)
 */
export function configureErrorStacks(next: Partial<ErrorStackPolicy>): ErrorStackPolicy {
  const previous = policy;
  const root = next.root === undefined ? policy.root : next.root;
  policy = {
    keep: next.keep ?? policy.keep,
    root: root === null ? null : root.replace(/\\/g, "/").replace(/\/+$/, ""),
  };
  return previous;
}

/** The stack to keep for an error under the current policy (undefined: keep none). */
export function cleanStack(stack: string | undefined): string | undefined {
  if (stack === undefined || !policy.keep) return undefined;
  return stripStackPaths(stack, policy.root);
}

// A frame: V8 and JavaScriptCore write "    at fn (location)", SpiderMonkey "fn@location".
const FRAME = /^\s*at\s|^[^\s@]*@\S+:\d+(?::\d+)?$/;
// An absolute location: a file URL, a POSIX path or a Windows drive path.
const ABSOLUTE = /(?<=^|[\s(@])(?:file:\/\/)?(?:\/|[A-Za-z]:[\\/])[^\s()]*/g;

/**
 * Rewrites the absolute locations of a stack's frames: relative to `root` when under it
 * (`src/x.ts:10:5`), else the file name (`x.ts:10:5`). Message lines are left as they are:
 * they are the thrower's own words, also kept as the error's message.
 */
export function stripStackPaths(stack: string, root: string | null): string {
  return stack.split("\n").map((line) =>
    FRAME.test(line) ? line.replace(ABSOLUTE, (location) => relative(location, root)) : line
  ).join("\n");
}

function relative(location: string, root: string | null): string {
  let path = location.replace(/^file:\/\//, "");
  try {
    path = decodeURI(path);
  } catch { /* not percent-encoded: keep as written */ }
  path = path.replace(/\\/g, "/").replace(/^\/([A-Za-z]:\/)/, "$1");
  if (root && root !== "/" && path.startsWith(`${root}/`)) return path.slice(root.length + 1);
  return path.slice(path.lastIndexOf("/") + 1);
}
