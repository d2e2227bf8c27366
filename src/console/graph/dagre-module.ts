import type * as Dagre from '@dagrejs/dagre' with { 'resolution-mode': 'import' };

/**
 * @dagrejs/dagre ships a CommonJS build (dist/dagre.cjs, its `require` export) but declares its types as an ES module
 * only, which a CommonJS project cannot import statically. The types are taken as the ES module's, the code is the
 * CommonJS build's: the same API.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const dagre = require('@dagrejs/dagre') as typeof Dagre;
