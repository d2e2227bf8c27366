/** The contract checker itself, on a small OpenAPI 3.0 description whose every rule is known. */
import { describe, expect, it } from 'vitest';
import { OpenApiContract, type OpenApiDocument } from '../../helpers/openapi-contract';

function contract(): OpenApiContract {
  const doc: OpenApiDocument = {
    openapi: '3.0.3',
    info: { version: 'test' },
    paths: {
      '/things/{id}': { get: { responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/thing' } } } }, '404': { $ref: '#/components/responses/not_found' } } } },
    },
    components: {
      responses: { not_found: { description: 'Not found', content: { 'application/json': { schema: { $ref: '#/components/schemas/error' } } } } },
      schemas: {
        error: { type: 'object', properties: { message: { type: 'string' } } },
        user: { type: 'object', required: ['login'], properties: { login: { type: 'string' } } },
        thing: {
          allOf: [
            { type: 'object', required: ['id', 'state'], properties: { id: { type: 'integer' }, state: { type: 'string', nullable: true, enum: ['open', 'closed'] } } },
            { type: 'object', properties: { owner: { $ref: '#/components/schemas/user' }, merged_by: { nullable: true, allOf: [{ $ref: '#/components/schemas/user' }] } } },
          ],
          properties: {
            labels: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'object', properties: { name: { type: 'string' } } }] } },
            permissions: { type: 'object', additionalProperties: { type: 'boolean' } },
          },
        },
      },
    },
  };
  return new OpenApiContract(doc);
}

describe('OpenApiContract', () => {
  const checker = contract();
  const thing = checker.responseSchema('GET', '/things/{id}', 200)!;

  it('finds response schemas through $ref, and nothing for an undeclared status', () => {
    expect(checker.problems(checker.responseSchema('GET', '/things/{id}', 404)!, { message: 'Not Found' })).toEqual([]);
    expect(checker.responseSchema('GET', '/things/{id}', 201)).toBeUndefined();
    expect(() => checker.responseSchema('POST', '/things/{id}', 200)).toThrow('not in the description');
  });

  it('reads OpenAPI 3.0 nullable: null joins the type and the enum, and a nullable composition accepts null', () => {
    expect(checker.problems(thing, { id: 1, state: null, merged_by: null })).toEqual([]);
    expect(checker.problems(thing, { id: 1, state: 'open', merged_by: { login: 'octocat' } })).toEqual([]);
    expect(checker.problems(thing, { id: 1, state: 'merged' }).join('\n')).toContain('/state: must be equal to one of the allowed values');
  });

  it('reports missing required fields and wrong types', () => {
    expect(checker.problems(thing, { state: 'open' })).toEqual(['/: must have required property \'id\' {"missingProperty":"id"}']);
    expect(checker.problems(thing, { id: '1', state: 'open' })).toEqual(['/id: must be integer {"type":"integer"}']);
  });

  it('reports fields no applicable schema declares, at any depth, across allOf and the oneOf branch that matches', () => {
    const body = {
      id: 1, state: 'open', ticket: 'PROJ-1',
      owner: { login: 'octocat', plan: 'pro' },
      labels: ['bug', { name: 'ui', color: 'red' }],
      permissions: { admin: true, push: false },
    };
    expect(checker.problems(thing, body)).toEqual([
      '/ticket: not declared by the schema',
      '/owner/plan: not declared by the schema',
      '/labels/1/color: not declared by the schema',
    ]);
    expect(checker.problems(thing, body, (path) => path === '/ticket')).toHaveLength(2);
  });
});
