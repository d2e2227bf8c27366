/**
 * Validates JSON bodies against the response and webhook schemas of a vendor's OpenAPI 3.0 description, so the
 * simulators can be held to the vendor's own contract. Two checks: the schema itself (required fields, types,
 * enums, formats), and no field the schema does not declare (a simulator that invents a field lets the service
 * come to rely on something the vendor never sends).
 */
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';

type Schema = { [key: string]: unknown };

export interface OpenApiDocument {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, unknown> }>>;
  components: Record<string, Record<string, unknown>>;
  'x-webhooks'?: Record<string, Record<string, unknown>>;
}

const DOC_ID = 'openapi-document';
const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads a (large) description once; the caller keeps it for the whole test file. */
export function loadOpenApiDocument(modulePath: string): OpenApiDocument {
  return JSON.parse(readFileSync(require.resolve(modulePath), 'utf8')) as OpenApiDocument;
}

export class OpenApiContract {
  private readonly ajv: Ajv;
  private readonly compiled = new Map<Schema, ValidateFunction>();

  /** Takes the document over: it is normalised in place (nullable, references), so pass a freshly loaded one. */
  constructor(readonly doc: OpenApiDocument) {
    // OpenAPI 3.0's `nullable` is not JSON Schema; rewrite it once so any draft-07 validator reads it right.
    normaliseNullable(doc.components);
    if (doc['x-webhooks']) normaliseNullable(doc['x-webhooks']);
    absolutiseRefs(doc);
    this.ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addFormat('timestamp', true);
    this.ajv.addSchema(doc as never, DOC_ID);
  }

  /**
   * The JSON schema of one response of an operation, or undefined when the operation does not declare the status.
   * `pathTemplate` is the description's key, e.g. `/repos/{owner}/{repo}/pulls`.
   */
  responseSchema(method: string, pathTemplate: string, status: number): Schema | undefined {
    const operation = this.doc.paths[pathTemplate]?.[method.toLowerCase()];
    if (!operation) throw new Error(`${method} ${pathTemplate} is not in the description`);
    const response = this.deref(operation.responses?.[String(status)]);
    if (!response) return undefined;
    const content = (response.content ?? {}) as Record<string, { schema?: Schema }>;
    return content['application/json']?.schema ?? content['application/scim+json']?.schema ?? {};
  }

  /** The request-body schema of a webhook (`x-webhooks` key such as `pull-request-opened`). */
  webhookSchema(name: string): Schema {
    const hook = this.doc['x-webhooks']?.[name] as { post?: { requestBody?: { content?: Record<string, { schema?: Schema }> } } } | undefined;
    const schema = hook?.post?.requestBody?.content?.['application/json']?.schema;
    if (!schema) throw new Error(`webhook ${name} is not in the description`);
    return schema;
  }

  /** A schema of components.schemas by name. */
  component(name: string): Schema {
    const schema = this.doc.components.schemas?.[name];
    if (!isObject(schema)) throw new Error(`schema ${name} is not in the description`);
    return schema;
  }

  /** Every way `data` breaks `schema`, as `path: problem` lines; empty when it conforms. */
  problems(schema: Schema, data: unknown, ignoreUndeclared: (path: string) => boolean = () => false): string[] {
    const validate = this.validator(schema);
    if (!validate(data)) {
      return (validate.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message ?? e.keyword}${e.params && 'additionalProperty' in e.params ? '' : ` ${JSON.stringify(e.params)}`}`);
    }
    return this.undeclared(schema, data, '').filter((path) => !ignoreUndeclared(path)).map((path) => `${path}: not declared by the schema`);
  }

  private validator(schema: Schema): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.compiled.set(schema, validate);
    }
    return validate;
  }

  private deref(value: unknown): Schema | undefined {
    let current = value;
    for (let depth = 0; isObject(current) && typeof current.$ref === 'string' && depth < 20; depth++) {
      const pointer = current.$ref.replace(`${DOC_ID}#`, '');
      current = pointer.split('/').slice(1).reduce<unknown>((node, part) => (isObject(node) ? node[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), this.doc);
    }
    return isObject(current) ? current : undefined;
  }

  /** The schema and every part of it that applies to `data`: allOf members, and the anyOf/oneOf members it matches. */
  private applicable(schema: Schema, data: unknown): Schema[] {
    const resolved = this.deref(schema);
    if (!resolved) return [];
    const parts = [resolved];
    for (const member of (resolved.allOf as Schema[] | undefined) ?? []) parts.push(...this.applicable(member, data));
    for (const member of [...((resolved.anyOf as Schema[] | undefined) ?? []), ...((resolved.oneOf as Schema[] | undefined) ?? [])]) {
      if (this.validator(member)(data)) parts.push(...this.applicable(member, data));
    }
    return parts;
  }

  /** Paths of object fields the applicable schemas do not declare (where they do not allow extra fields). */
  private undeclared(schema: Schema, data: unknown, path: string): string[] {
    const parts = this.applicable(schema, data);
    if (Array.isArray(data)) {
      const items = parts.map((part) => part.items).filter(isObject);
      return data.flatMap((item, index) => items.flatMap((itemSchema) => this.undeclared(itemSchema, item, `${path}/${index}`)));
    }
    if (!isObject(data)) return [];
    const declared = new Map<string, Schema[]>();
    const extras: Schema[] = [];
    let open = parts.every((part) => !isObject(part.properties));
    for (const part of parts) {
      for (const [key, propertySchema] of Object.entries((part.properties as Schema | undefined) ?? {})) {
        declared.set(key, [...(declared.get(key) ?? []), propertySchema as Schema]);
      }
      if (part.additionalProperties === true) open = true;
      if (isObject(part.additionalProperties)) extras.push(part.additionalProperties);
    }
    const found: string[] = [];
    for (const [key, value] of Object.entries(data)) {
      const childPath = `${path}/${key}`;
      const schemas = declared.get(key) ?? extras;
      if (schemas.length === 0) {
        if (!open) found.push(childPath);
        continue;
      }
      // A field is fine if any schema that declares it accepts it (the others may be unrelated branches).
      const nested = schemas.map((childSchema) => this.undeclared(childSchema, value, childPath));
      found.push(...nested.reduce((best, next) => (next.length < best.length ? next : best)));
    }
    return found;
  }
}

/** `nullable: true` (OpenAPI 3.0) as plain JSON Schema: `null` joins the types and the enum. */
function normaliseNullable(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) normaliseNullable(item);
    return;
  }
  if (!isObject(node)) return;
  for (const value of Object.values(node)) normaliseNullable(value);
  if (node.nullable !== true) return;
  delete node.nullable;
  if (Array.isArray(node.enum) && !node.enum.includes(null)) node.enum = [...(node.enum as unknown[]), null];
  if (typeof node.type === 'string') {
    node.type = [node.type, 'null'];
    return;
  }
  // No type of its own (a composition): either the composed schema or null.
  const rest = { ...node };
  for (const key of Object.keys(node)) delete node[key];
  node.anyOf = [rest, { type: 'null' }];
}

/** `#/components/...` becomes a reference into the registered document, so any part of it compiles on its own. */
function absolutiseRefs(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) absolutiseRefs(item);
    return;
  }
  if (!isObject(node)) return;
  if (typeof node.$ref === 'string' && node.$ref.startsWith('#')) node.$ref = `${DOC_ID}${node.$ref}`;
  for (const value of Object.values(node)) absolutiseRefs(value);
}
