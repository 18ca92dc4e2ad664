/**
 * @module keys — API keys for tests, made by scripts/entry/keygen.ts exactly as an operator would:
 * the key goes in the bearer header, its entry through the SKEDULR_KEYS parser into createApp.
 */
import { keygen } from "../../scripts/entry/new-key.ts";
import { type ApiKeyEntry, type ApiRole, parseApiKeys } from "../../src/worker/access-config.ts";

export interface TestKey {
  key: string;
  entry: ApiKeyEntry;
  bearer: { authorization: string };
}

export async function makeKey(name: string, role: ApiRole): Promise<TestKey> {
  const made = await keygen(name, role);
  if ("error" in made) throw new Error(made.error);
  const { keys, problems } = parseApiKeys(made.entry);
  if (problems.length) throw new Error(problems.join("; "));
  return { key: made.key, entry: keys[0], bearer: { authorization: `Bearer ${made.key}` } };
}
