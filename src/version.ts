/**
 * @module version — Skedulr's version, in one place for code (entry points, the Worker, the
 * OpenAPI document). package.json and deno.json carry the same string: the exports gate
 * (scripts/tools/check-exports.ts) fails when they differ.
 */
export const VERSION = "0.2.0";
