/**
 * @module secret-headers — header values of `http` tasks are credentials for the target:
 * stores keep them apart from the payload they show and search, and put them back for the
 * worker that claims the task.
 *
 * A store saves {@link sealPayload}'s `shown` where it keeps payloads (the text free-text
 * search reads), with every header value replaced by "[redacted]", and the values apart.
 * A claim gets them back ({@link unsealPayload}). A record read back (get, list, schedules)
 * carries {@link redactedPayload}: its header values are there for code in this process (a
 * retried submit compares equal), but its JSON — every API answer, the dashboard — says
 * "[redacted]".
 */

/** What the API shows instead of an `http` task's header value. */
export const REDACTED = "[redacted]";

/** Header values by name, as submitted. */
export type HeaderSecrets = Record<string, string>;

/** The header values of an `http` payload, or null when it has none to keep apart. */
function headersOf(type: string, payload: unknown): HeaderSecrets | null {
  if (type !== "http" || !isObject(payload)) return null;
  const headers = (payload as { headers?: unknown }).headers;
  if (!isObject(headers)) return null;
  const entries = Object.entries(headers as object);
  if (entries.length === 0 || entries.some(([, v]) => typeof v !== "string")) return null;
  return Object.fromEntries(entries);
}

function isObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function redacted(headers: HeaderSecrets): HeaderSecrets {
  return Object.fromEntries(Object.keys(headers).map((name) => [name, REDACTED]));
}

/**
 * Splits a payload for a store: what it may show and search, and the secret values (null
 * when the payload has none).
 */
export function sealPayload(
  type: string,
  payload: unknown,
): { shown: unknown; secrets: HeaderSecrets | null } {
  const headers = headersOf(type, payload);
  if (!headers) return { shown: payload, secrets: null };
  return { shown: { ...(payload as object), headers: redacted(headers) }, secrets: headers };
}

/** The payload a claim hands to the handler: `shown` with the secret values put back. */
export function unsealPayload(shown: unknown, secrets: HeaderSecrets | null | undefined): unknown {
  return secrets && isObject(shown) ? { ...(shown as object), headers: { ...secrets } } : shown;
}

/**
 * The payload of a record read back: header values present for code in this process, and
 * "[redacted]" in its JSON. A row stored before values were kept apart has them in `shown`:
 * its JSON is redacted all the same.
 */
export function redactedPayload(
  type: string,
  shown: unknown,
  secrets: HeaderSecrets | null | undefined,
): unknown {
  const headers = secrets ?? headersOf(type, shown);
  if (!headers || !isObject(shown)) return shown;
  return { ...(shown as object), headers: redactedHeaders(headers) };
}

/**
 * Header values as read back: present for code in this process (a copy with `{...view}`
 * has them), "[redacted]" in JSON.
 */
export function redactedHeaders(headers: HeaderSecrets): HeaderSecrets {
  const view = { ...headers };
  // Not enumerable: key-by-key comparisons and copies see only the header names.
  Object.defineProperty(view, "toJSON", { value: () => redacted(headers), enumerable: false });
  return view;
}
