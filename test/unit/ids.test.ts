/**
 * Task ids (core/ids.ts `newId`): 9 base-36 characters of the millisecond, `-`, 10 random
 * base-36 characters; sorted as text they sort by time; a prefix goes in front; every id is
 * a valid name; a time past what 9 characters hold still makes a whole id.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { NAME_PATTERN, newId } from "../../src/core/ids.ts";

const SHAPE = /^[0-9a-z]{9}-[0-9a-z]{10}$/;

describe("newId", () => {
  it("is the millisecond in base 36, a dash and 10 random characters, and a valid name", () => {
    const now = Date.UTC(2026, 11, 7, 17, 30);
    const id = newId("", now);
    assert.match(id, SHAPE);
    assert.equal(id.slice(0, 9), now.toString(36).padStart(9, "0"));
    assert.match(id, NAME_PATTERN);
    assert.match(newId(), SHAPE);
  });

  it("sorts by time as text, and 100,000 ids of one millisecond are all different", () => {
    const t = Date.UTC(2026, 0, 1);
    const ids = [newId("", t + 5), newId("", t), newId("", t + 1_000_000), newId("", t + 1)];
    assert.deepEqual([...ids].sort(), [ids[1], ids[3], ids[0], ids[2]]);
    const many = new Set(Array.from({ length: 100_000 }, () => newId("", t)));
    assert.equal(many.size, 100_000);
    for (const id of [...many].slice(0, 100)) assert.match(id, SHAPE);
  });

  it("puts a prefix in front, and makes a whole id past what 9 characters of time hold", () => {
    const now = Date.UTC(2026, 5, 1);
    const prefixed = newId("demo-", now);
    assert.match(prefixed, /^demo-[0-9a-z]{9}-[0-9a-z]{10}$/);
    assert.equal(prefixed.slice(5, 14), now.toString(36).padStart(9, "0"));
    const far = 36 ** 9 + 123; // ten base-36 characters of time
    assert.match(newId("", far), /^[0-9a-z]{10}-[0-9a-z]{10}$/);
    assert.equal(newId("", far).slice(0, 10), far.toString(36));
    // Back to a present time: the id is 9 + 1 + 10 again.
    assert.match(newId("", now + 1), SHAPE);
  });
});
