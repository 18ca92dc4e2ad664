/**
 * @module dashboard/client/task-graph — a task's workflow as a graph: its parents on the
 * left, the task, its children on the right, each node a link coloured by its status.
 */
import { sv } from "./dom.ts";

/** A node beside the task: its id, status and how it is linked. */
export interface GraphNode {
  id: string;
  status: string;
  label: string;
}

/** Nodes drawn per side; more are summed up in one node. */
const SHOWN = 8;
const W = 620, COL = 180, ROW = 34, BOX_H = 24;

function node(n: GraphNode, x: number, y: number, me = false): SVGElement {
  const text = n.id.length > 20 ? `${n.id.slice(0, 19)}…` : n.id;
  const box = sv("g", { class: `node s-${n.status}${me ? " me" : ""}` }, [
    sv("title", { text: `${n.label} ${n.id}: ${n.status}` }),
    sv("rect", { x, y: y - BOX_H / 2, width: COL, height: BOX_H, rx: 6 }),
    sv("text", { x: x + 8, y: y + 4, text: `${text} · ${n.status}` }),
  ]);
  if (me) return box;
  return sv("a", { href: `#/tasks/${encodeURIComponent(n.id)}`, "data-node": n.id }, box);
}

/** The side's nodes, the last standing for the ones not shown. */
function shown(nodes: GraphNode[]): GraphNode[] {
  if (nodes.length <= SHOWN) return nodes;
  const more = nodes.length - SHOWN + 1;
  return [...nodes.slice(0, SHOWN - 1), { id: `+${more} more`, status: "more", label: "" }];
}

/** The SVG of `task` between `parents` and `children` (each side may be empty). */
export function workflowGraph(
  task: { id: string; status: string },
  parentNodes: GraphNode[],
  childNodes: GraphNode[],
): SVGSVGElement {
  const left = shown(parentNodes), right = shown(childNodes);
  const rows = Math.max(left.length, right.length, 1);
  const height = rows * ROW + 8;
  const mid = height / 2;
  const y = (i: number, n: number) => mid + (i - (n - 1) / 2) * ROW;
  const cx = (W - COL) / 2;
  const parts: SVGElement[] = [];
  for (let i = 0; i < left.length; i++) {
    parts.push(sv("line", { class: "edge", x1: COL, y1: y(i, left.length), x2: cx, y2: mid }));
  }
  for (let i = 0; i < right.length; i++) {
    const x2 = W - COL;
    parts.push(sv("line", { class: "edge", x1: cx + COL, y1: mid, x2, y2: y(i, right.length) }));
  }
  left.forEach((p, i) => parts.push(node(p, 0, y(i, left.length))));
  right.forEach((c, i) => parts.push(node(c, W - COL, y(i, right.length))));
  parts.push(node({ ...task, label: "this task" }, cx, mid, true));
  return sv("svg", {
    id: "workflow-graph",
    viewBox: `0 0 ${W} ${height}`,
    role: "img",
    "aria-label":
      `Workflow of ${task.id}: ${parentNodes.length} parents, ${childNodes.length} children`,
  }, parts);
}
