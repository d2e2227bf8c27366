import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROMETHEUS_DIR, ruleFiles, rulesOf } from '../../helpers/promql-metric-names';

/**
 * The alert rules under deploy/prometheus are checked and unit-tested with Prometheus' own promtool, put into
 * .tools/bin once by scripts/install-promtool.sh (Debian's, or one built with Go) or named by PROMTOOL_PATH. No
 * promtool is a failure, not a skip: rules nobody evaluated are not known to work.
 */
const ROOT = join(__dirname, '..', '..', '..');

function promtoolPath(): string {
  const candidate = process.env.PROMTOOL_PATH || join(ROOT, '.tools', 'bin', 'promtool');
  if (!existsSync(candidate)) {
    throw new Error(`promtool not found at ${candidate}; install it with scripts/install-promtool.sh (Debian's, unpacked in seconds) or set PROMTOOL_PATH`);
  }
  return candidate;
}

function promtool(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(promtoolPath(), args, { cwd: PROMETHEUS_DIR, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

const testFiles = readdirSync(PROMETHEUS_DIR).filter((name) => name.endsWith('.test.yml'));

describe('deploy/prometheus', () => {
  it('has rule files and a unit-test file for each', () => {
    const rules = ruleFiles().map((file) => file.slice(PROMETHEUS_DIR.length + 1));
    expect(rules.length).toBeGreaterThan(0);
    for (const file of rules) expect(testFiles, `a promtool test file for ${file}`).toContain(file.replace(/\.rules\.yml$/, '.test.yml'));
  });

  it.each(ruleFiles().map((file) => [file.slice(PROMETHEUS_DIR.length + 1)]))('promtool check rules %s', async (file) => {
    const result = await promtool(['check', 'rules', file]);
    expect(result.code, result.output).toBe(0);
  });

  it.each(testFiles.map((file) => [file]))('promtool test rules %s', async (file) => {
    const result = await promtool(['test', 'rules', file]);
    expect(result.code, result.output).toBe(0);
  });

  it('promtool check config prometheus.yml (the example scrape configuration and its rule files)', async () => {
    const result = await promtool(['check', 'config', 'prometheus.yml']);
    expect(result.code, result.output).toBe(0);
  });

  it('every alert is exercised by a unit test, firing at least once', () => {
    const fired = new Set<string>();
    for (const file of testFiles) {
      const document = parse(readFileSync(join(PROMETHEUS_DIR, file), 'utf8')) as { tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts?: unknown[] }> }> };
      for (const test of document.tests) for (const check of test.alert_rule_test ?? []) if ((check.exp_alerts ?? []).length > 0) fired.add(check.alertname);
    }
    const alerts = ruleFiles().flatMap(rulesOf).flatMap((rule) => (rule.alert ? [rule.alert] : []));
    expect(alerts.filter((alert) => !fired.has(alert))).toEqual([]);
  });

  it('every alert has a severity, a summary and a description, and a unique name', () => {
    const alerts = ruleFiles().flatMap((file) => (parse(readFileSync(file, 'utf8')) as { groups: Array<{ rules: Array<Record<string, any>> }> }).groups.flatMap((group) => group.rules))
      .filter((rule) => rule.alert);
    for (const rule of alerts) {
      expect(['page', 'ticket'], rule.alert).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, rule.alert).toBeTruthy();
      expect(rule.annotations?.description, rule.alert).toBeTruthy();
    }
    expect(new Set(alerts.map((rule) => rule.alert)).size).toBe(alerts.length);
  });
});
