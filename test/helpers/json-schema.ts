/**
 * @module json-schema — a small JSON Schema (2020-12) checker for the keywords the OpenAPI
 * document uses: `$ref` into `components.schemas`, `allOf`/`oneOf`/`anyOf`, `const`, `enum`,
 * `type` (one or a list), object properties, `required`, `additionalProperties`, array
 * `items`, and numeric and size bounds. Annotation keywords are ignored. No dependency, so it
 * runs under Bun and Deno alike; it exists to check real answers against the document.
 */

type Schema = Record<string, any>;

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function hasType(value: unknown, type: string): boolean {
  if (type === "integer") return Number.isInteger(value);
  return typeOf(value) === type;
}

/**
 * Every way `value` breaks `schema`, each as "path: problem" (empty when it conforms).
 * `root` is the OpenAPI document `$ref`s resolve against.
 */
export function schemaProblems(value: unknown, schema: Schema, root: Schema, path = "$"): string[] {
  if (schema.$ref) {
    const name = String(schema.$ref).replace("#/components/schemas/", "");
    const target = root.components?.schemas?.[name];
    if (!target) return [`${path}: unresolved ${schema.$ref}`];
    return schemaProblems(value, target, root, path);
  }
  const out: string[] = [];
  const sub = (s: Schema) => schemaProblems(value, s, root, path);
  for (const s of schema.allOf ?? []) out.push(...sub(s));
  if (schema.anyOf && !schema.anyOf.some((s: Schema) => sub(s).length === 0)) {
    out.push(`${path}: matches none of anyOf`);
  }
  if (schema.oneOf) {
    const fits = schema.oneOf.filter((s: Schema) => sub(s).length === 0).length;
    if (fits !== 1) out.push(`${path}: matches ${fits} of oneOf, not exactly one`);
  }
  if ("const" in schema && JSON.stringify(value) !== JSON.stringify(schema.const)) {
    out.push(
      `${path}: ${JSON.stringify(value)} is not the constant ${JSON.stringify(schema.const)}`,
    );
  }
  if (
    schema.enum && !schema.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(value))
  ) {
    out.push(`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  }
  if (schema.type !== undefined) {
    const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => hasType(value, t))) {
      return [...out, `${path}: a ${typeOf(value)}, expected ${types.join(" or ")}`];
    }
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) out.push(`${path}: < minimum`);
    if (schema.maximum !== undefined && value > schema.maximum) out.push(`${path}: > maximum`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      out.push(`${path}: too few`);
    }
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      out.push(`${path}: too many`);
    }
    if (schema.items) {
      value.forEach((v, i) => out.push(...schemaProblems(v, schema.items, root, `${path}[${i}]`)));
    }
  } else if (typeOf(value) === "object") {
    const record = value as Record<string, unknown>;
    for (const key of schema.required ?? []) {
      if (!(key in record)) out.push(`${path}: missing required ${key}`);
    }
    const props: Schema = schema.properties ?? {};
    for (const [key, v] of Object.entries(record)) {
      if (props[key]) out.push(...schemaProblems(v, props[key], root, `${path}.${key}`));
      else if (schema.additionalProperties === false) out.push(`${path}: unexpected ${key}`);
      else if (typeof schema.additionalProperties === "object") {
        out.push(...schemaProblems(v, schema.additionalProperties, root, `${path}.${key}`));
      }
    }
    if (schema.maxProperties !== undefined && Object.keys(record).length > schema.maxProperties) {
      out.push(`${path}: more than ${schema.maxProperties} properties`);
    }
  }
  return out;
}
