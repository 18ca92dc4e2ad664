/**
 * The checks gen-lua.ts runs over the Lua sources (scripts/tools/lua-lint.ts): each file
 * includes what it names and names what it includes, every script runs the layout guard,
 * values the generated facts own are never copied by hand, and state a call changes is
 * marked so a function library resets it.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { lintLua, type LuaFile } from "../../scripts/tools/lua-lint.ts";

function file(path: string, source: string): LuaFile {
  return {
    path,
    source,
    includes: [...source.matchAll(/--- @include "([\w-]+)"/g)].map((m) => m[1]),
  };
}

const INCLUDES = new Map(
  [
    ["facts", "local LAYOUT = '1'\nlocal Code = {ok = 0}\n"],
    ["prefix", '--- @include "facts"\nlocal P = KEYS[1] --- @per-call\nif LAYOUT then end\n'],
    ["tkey", '--- @include "prefix"\nlocal function tkey(id) return P .. id end\n'],
    ["values", "local function text(n) return n end\n"],
  ].map(([name, source]) => [name, file(`includes/${name}.lua`, source)]),
);

function problems(source: string): string {
  try {
    lintLua([file("s-1.lua", source)], INCLUDES);
    return "";
  } catch (error) {
    return (error as Error).message;
  }
}

describe("Lua lint", () => {
  it("accepts a script that includes what it names, facts through prefix", () => {
    assert.equal(problems('--- @include "tkey"\nreturn tkey(Code.ok)\n'), "");
    // A local of the same name is not the helper; comments and strings are not names.
    assert.equal(problems('--- @include "prefix"\nlocal text = P -- text(1)\nreturn text\n'), "");
  });

  it("names a helper used without its include, and an include used for nothing", () => {
    assert.match(
      problems('--- @include "prefix"\nreturn P .. tkey(1)\n'),
      /names tkey: include "tkey"/,
    );
    assert.match(
      problems('--- @include "prefix"\n--- @include "values"\nreturn P\n'),
      /includes "values" but names nothing it declares/,
    );
  });

  it("requires the layout guard and forbids KEYS outside prefix.lua", () => {
    assert.match(problems('--- @include "values"\nreturn text(1)\n'), /must include "prefix"/);
    assert.match(problems('--- @include "prefix"\nreturn KEYS[1] .. P\n'), /reads KEYS/);
  });

  it("refuses copies of generated facts", () => {
    const copies: [string, RegExp][] = [
      ["if P then return {-1} end", /a return code/],
      ["return string.format('%016d', 1) .. P", /a seq format/],
      ["return string.sub(P, 17)", /seq width/],
      ["local S = {waiting = true, dead = true}\nreturn S[P]", /a status set/],
      ["local S = {'queued', 'running'}\nreturn S[P]", /a status list/],
      [
        "if t.status == 'succeeded' or t.status == 'dead' or t.status == 'cancelled' or " +
        "t.status == 'expired' then return P end",
        /use FINAL_STATUSES/,
      ],
      ["if t.status == 'queud' then return P end", /'queud' is not a status/],
    ];
    for (const [code, why] of copies) {
      assert.match(problems(`--- @include "prefix"\n${code}\n`), why, code);
    }
  });

  it("asks for state a call changes to be marked per call", () => {
    const unmarked = new Map(INCLUDES);
    unmarked.set(
      "bump",
      file("includes/bump.lua", "local BUMPS = {}\nlocal function bump() return BUMPS end\n"),
    );
    let message = "";
    try {
      lintLua([file("s-1.lua", '--- @include "bump"\nreturn bump()\n')], unmarked);
    } catch (error) {
      message = (error as Error).message;
    }
    assert.match(message, /includes\/bump\.lua: "local BUMPS = \{\}" is state a call may change/);
  });
});
