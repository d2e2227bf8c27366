#!/usr/bin/env node
// The `service` command. Commands are compiled to dist/ by `npm run build`.
const { execute } = require('@oclif/core');

execute({ dir: __dirname }).catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
