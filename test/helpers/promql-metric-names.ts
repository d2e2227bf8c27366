import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/**
 * The metric names a PromQL expression reads, whether written bare (`up == 0`), with matchers (`x{a="b"}`) or with a
 * range (`x[5m]`). Good enough for the expressions of our dashboard and rules, not a PromQL parser: strings, label
 * matchers, ranges, grouping clauses and function calls are taken out first, and what remains that looks like a name
 * and is not a keyword is a metric.
 */
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'inf', 'nan', 'atan2']);

export function promqlMetricNames(expression: string): string[] {
  const stripped = expression
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""') // strings (label values, regexes)
    .replace(/\{[^}]*\}/g, ' ') // label matchers
    .replace(/\[[^\]]*\]/g, ' ') // ranges and subqueries
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ') // label lists
    .replace(/\boffset\s+-?[\w$]+/g, ' ')
    .replace(/@\s*[\w$().]+/g, ' ');
  const names = new Set<string>();
  // Numbers (1e3, 0.95) are consumed whole so their letters are never taken for names; `$var` is a Grafana variable.
  for (const match of stripped.matchAll(/\$\w+|[0-9][\w.]*|([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    const [, name, call] = match;
    if (!name || call || KEYWORDS.has(name.toLowerCase())) continue;
    names.add(name);
  }
  return [...names];
}

/** Every `expr` of a Grafana dashboard (panels, rows' panels, query variables). */
export function dashboardExpressions(dashboard: unknown): string[] {
  const found: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if ((key === 'expr' || key === 'query' || key === 'definition') && typeof value === 'string') found.push(value.replace(/^label_values\((.*)\)$/, (_all, args: string) => args.split(',')[0] ?? ''));
      else walk(value);
    }
  };
  walk(dashboard);
  return found.filter((expression) => expression.trim() !== '' && expression !== 'prometheus');
}

export interface RuleDefinition {
  file: string;
  group: string;
  alert?: string;
  record?: string;
  expr: string;
}

export const PROMETHEUS_DIR = join(__dirname, '..', '..', 'deploy', 'prometheus');
export const GRAFANA_DASHBOARDS_DIR = join(__dirname, '..', '..', 'deploy', 'grafana', 'dashboards');

export function ruleFiles(dir = PROMETHEUS_DIR): string[] {
  return readdirSync(dir).filter((name) => name.endsWith('.rules.yml')).map((name) => join(dir, name));
}

export function rulesOf(file: string): RuleDefinition[] {
  const document = parse(readFileSync(file, 'utf8')) as { groups: Array<{ name: string; rules: Array<{ alert?: string; record?: string; expr: string }> }> };
  return document.groups.flatMap((group) => group.rules.map((rule) => ({ file, group: group.name, alert: rule.alert, record: rule.record, expr: String(rule.expr) })));
}

export function dashboardFiles(dir = GRAFANA_DASHBOARDS_DIR): string[] {
  return readdirSync(dir).filter((name) => name.endsWith('.json')).map((name) => join(dir, name));
}

/** Every metric name the shipped dashboards and rules read. */
export function metricNamesUsed(): Map<string, string[]> {
  const used = new Map<string, string[]>();
  const note = (name: string, where: string) => used.set(name, [...(used.get(name) ?? []), where]);
  for (const file of dashboardFiles()) {
    for (const expression of dashboardExpressions(JSON.parse(readFileSync(file, 'utf8')))) for (const name of promqlMetricNames(expression)) note(name, file);
  }
  for (const file of ruleFiles()) {
    for (const rule of rulesOf(file)) for (const name of promqlMetricNames(rule.expr)) note(name, `${file} ${rule.alert ?? rule.record}`);
  }
  return used;
}

/** Series Prometheus makes itself for every target: no process exports them. */
export const SYNTHETIC_METRICS = new Set(['up', 'scrape_duration_seconds', 'scrape_samples_scraped', 'scrape_samples_post_metric_relabeling', 'scrape_series_added']);

/** The metric families of a Prometheus text exposition, from its `# TYPE` lines, with their types. */
export function exposedFamilies(text: string): Map<string, string> {
  const families = new Map<string, string>();
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) families.set(match[1]!, match[2]!);
  return families;
}

/** Whether a name a query reads is served by one of the families (histogram and summary series by their suffixes). */
export function isExposed(name: string, families: Map<string, string>): boolean {
  if (families.has(name)) return true;
  const suffix = /^(.*)_(bucket|sum|count)$/.exec(name);
  if (!suffix) return false;
  const type = families.get(suffix[1]!);
  return type === 'histogram' || (type === 'summary' && suffix[2] !== 'bucket');
}
