/**
 * The smallest value a JSON Schema accepts, for the sandbox model's answers: required properties only, the fewest
 * array items allowed, the first enum value or union member, and strings that say they were simulated. It covers the
 * schemas the AI SDK sends for zod schemas (draft 2020-12 / draft-07 shapes with local `$ref`s); a schema it cannot
 * satisfy (a `pattern`, `not`) gets the closest plain value and the service's own validation says what is wrong.
 */
type Schema = Record<string, unknown>;

const SIMULATED = 'Simulated by the sandbox model: no real model was asked.';
const MAX_DEPTH = 24;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function resolveRef(root: Schema, ref: string): Schema {
  if (!ref.startsWith('#')) return {};
  let node: unknown = root;
  for (const part of ref.slice(1).split('/').filter(Boolean)) {
    node = isSchema(node) ? node[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  }
  return isSchema(node) ? node : {};
}

function sampleString(schema: Schema): string {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  switch (schema.format) {
    case 'date-time': return '2000-01-01T00:00:00.000Z';
    case 'date': return '2000-01-01';
    case 'email': return 'sandbox@example.com';
    case 'uri': case 'url': return 'https://example.com/sandbox';
    case 'uuid': return '00000000-0000-4000-8000-000000000000';
    default: break;
  }
  let text = SIMULATED;
  while (text.length < min) text += ` ${SIMULATED}`;
  return text.slice(0, Math.max(min, Math.min(max, text.length)));
}

function sampleNumber(schema: Schema, integer: boolean): number {
  const lower = typeof schema.minimum === 'number' ? schema.minimum
    : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + (integer ? 1 : 0.5) : undefined;
  const upper = typeof schema.maximum === 'number' ? schema.maximum
    : typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - (integer ? 1 : 0.5) : undefined;
  let value = lower ?? (upper !== undefined ? Math.min(0, upper) : 0);
  if (integer) value = Math.ceil(value);
  if (typeof schema.multipleOf === 'number' && schema.multipleOf > 0) value = Math.ceil(value / schema.multipleOf) * schema.multipleOf;
  return value;
}

function sample(root: Schema, schema: Schema, depth: number): unknown {
  if (depth > MAX_DEPTH) return null;
  if (typeof schema.$ref === 'string') return sample(root, { ...resolveRef(root, schema.$ref), ...withoutKey(schema, '$ref') }, depth + 1);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if (Array.isArray(schema.allOf) && schema.allOf.length) {
    const merged = schema.allOf.filter(isSchema).reduce<Schema>((all, part) => mergeSchemas(all, part), withoutKey(schema, 'allOf'));
    return sample(root, merged, depth + 1);
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length) {
      // A non-null member first: a document of nulls tells a reader nothing.
      const chosen = options.filter(isSchema).find((option) => option.type !== 'null') ?? options[0];
      return sample(root, { ...withoutKey(schema, key), ...(isSchema(chosen) ? chosen : {}) }, depth + 1);
    }
  }
  const types = Array.isArray(schema.type) ? schema.type as string[] : typeof schema.type === 'string' ? [schema.type] : [];
  const type = types.find((t) => t !== 'null') ?? types[0] ?? (schema.properties ? 'object' : schema.items ? 'array' : 'string');
  switch (type) {
    case 'object': {
      const properties = isSchema(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? schema.required as string[] : [];
      const value: Record<string, unknown> = {};
      for (const name of required) {
        const property = properties[name];
        value[name] = sample(root, isSchema(property) ? property : {}, depth + 1);
      }
      return value;
    }
    case 'array': {
      const count = typeof schema.minItems === 'number' ? schema.minItems : 0;
      const items = isSchema(schema.items) ? schema.items : {};
      const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems.filter(isSchema) : [];
      const length = Math.max(count, prefix.length);
      return Array.from({ length }, (_, index) => sample(root, prefix[index] ?? items, depth + 1));
    }
    case 'integer': return sampleNumber(schema, true);
    case 'number': return sampleNumber(schema, false);
    case 'boolean': return false;
    case 'null': return null;
    default: return sampleString(schema);
  }
}

function withoutKey(schema: Schema, key: string): Schema {
  const { [key]: _dropped, ...rest } = schema;
  return rest;
}

function mergeSchemas(a: Schema, b: Schema): Schema {
  const properties = isSchema(a.properties) || isSchema(b.properties) ? { ...(a.properties as Schema | undefined), ...(b.properties as Schema | undefined) } : undefined;
  const required = [...new Set([...(Array.isArray(a.required) ? a.required : []), ...(Array.isArray(b.required) ? b.required : [])])];
  return { ...a, ...b, ...(properties ? { properties } : {}), ...(required.length ? { required } : {}) };
}

export function sampleFromSchema(schema: unknown): unknown {
  const root = isSchema(schema) ? schema : {};
  return sample(root, root, 0);
}
