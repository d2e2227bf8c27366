import { describe, expect, it } from 'vitest';
import { parseMappings } from '../../../src/cli/migrate';
import { parseMigrationBody } from '../../../src/gateway/routes/definition-api';

describe('migration requests', () => {
  it('reads --map old=new entries and names a malformed or repeated one', () => {
    expect(parseMappings(['prd_gate=prd_approval', 'answer_question=answer_question'])).toEqual({ ok: true, mapping: { prd_gate: 'prd_approval', answer_question: 'answer_question' } });
    expect(parseMappings(['prd_gate'])).toEqual({ ok: false, problem: '--map prd_gate: expected <old node>=<new node>, e.g. --map prd_gate=prd_approval_gate' });
    expect(parseMappings(['a=b', 'a=c'])).toEqual({ ok: false, problem: '--map a=c: a is mapped twice' });
  });

  it('reads the HTTP body: a dry run unless apply is true; wrong fields are named', () => {
    expect(parseMigrationBody({ to_revision: 3 })).toEqual({ ok: true, value: { to_revision: 3, mapping: {}, apply: false } });
    expect(parseMigrationBody({ to_revision: 3, mapping: { prd_gate: 'prd_gate' }, apply: true })).toEqual({ ok: true, value: { to_revision: 3, mapping: { prd_gate: 'prd_gate' }, apply: true } });
    expect(parseMigrationBody({ to_revision: '3' })).toEqual({ ok: false, message: 'to_revision must be a positive whole number, got "3"' });
    expect(parseMigrationBody({ to_revision: 3, apply: 'yes' })).toEqual({ ok: false, message: 'apply must be true or false, got "yes"' });
    expect(parseMigrationBody({ to_revision: 3, mapping: { a: 1 } })).toMatchObject({ ok: false, message: expect.stringContaining('mapping must be an object of node names') });
    expect(parseMigrationBody({ to_revision: 3, force: true })).toEqual({ ok: false, message: 'unknown field force (expected to_revision, mapping, apply)' });
    expect(parseMigrationBody([])).toMatchObject({ ok: false });
  });
});
