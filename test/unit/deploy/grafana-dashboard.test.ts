import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createServiceMetrics } from '../../../src/metrics/service-metrics';
import { dashboardExpressions, dashboardFiles, exposedFamilies, isExposed, promqlMetricNames, ruleFiles, rulesOf, SYNTHETIC_METRICS } from '../../helpers/promql-metric-names';

type Json = Record<string, any>;

const files = dashboardFiles();
const dashboards = files.map((file) => ({ file, json: JSON.parse(readFileSync(file, 'utf8')) as Json }));

function allPanels(dashboard: Json): Json[] {
  return (dashboard.panels as Json[]).flatMap((panel) => [panel, ...((panel.panels as Json[] | undefined) ?? [])]);
}

/** The families one process registers (the gateway and the worker register the same set, see service-metrics.ts). */
async function registeredFamilies(): Promise<Map<string, string>> {
  return exposedFamilies(await createServiceMetrics({ defaultMetrics: true }).registry.metrics());
}

describe('deploy/grafana dashboards', () => {
  it('are provisioning-ready: a uid, a Prometheus data source variable that every query uses, unique panel ids', () => {
    expect(files.length).toBeGreaterThan(0);
    for (const { file, json } of dashboards) {
      expect(json.uid, file).toMatch(/^[a-z0-9-]{1,40}$/);
      // Provisioned JSON must not carry an instance's numeric id, or a second Grafana refuses it.
      expect(json.id ?? null, file).toBeNull();
      const variable = (json.templating.list as Json[]).find((entry) => entry.type === 'datasource');
      expect(variable, file).toMatchObject({ name: 'datasource', query: 'prometheus' });
      const panels = allPanels(json).filter((panel) => panel.type !== 'row');
      expect(new Set(allPanels(json).map((panel) => panel.id)).size, file).toBe(allPanels(json).length);
      for (const panel of panels) {
        expect(panel.datasource, `${panel.title}`).toEqual({ type: 'prometheus', uid: '${datasource}' });
        expect(panel.targets.length, panel.title).toBeGreaterThan(0);
        for (const target of panel.targets as Json[]) expect(target.datasource, panel.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
        expect(panel.gridPos.x + panel.gridPos.w, panel.title).toBeLessThanOrEqual(24);
      }
    }
  });

  it('read only metrics the service registers (or Prometheus adds), histogram series included', async () => {
    const families = await registeredFamilies();
    const unknown = dashboards.flatMap(({ json }) => dashboardExpressions(json)).flatMap(promqlMetricNames)
      .filter((name) => !SYNTHETIC_METRICS.has(name) && !isExposed(name, families));
    expect(unknown).toEqual([]);
  });

  it('have a panel for every service metric family', async () => {
    const names = dashboards.flatMap(({ json }) => dashboardExpressions(json)).flatMap(promqlMetricNames);
    // Node's default process metrics (service_process_*) are charted only for memory, CPU and event-loop lag.
    const missing = [...(await registeredFamilies()).entries()]
      .filter(([family]) => !family.startsWith('service_process_'))
      .filter(([family, type]) => !names.some((name) => name === family || (type === 'histogram' && /^(.*)_(bucket|sum|count)$/.exec(name)?.[1] === family)))
      .map(([family]) => family);
    expect(missing).toEqual([]);
  });

  it('and the alert rules read only metrics the service registers', async () => {
    const families = await registeredFamilies();
    const unknown = ruleFiles().flatMap(rulesOf).flatMap((rule) => promqlMetricNames(rule.expr).map((name) => `${rule.alert}: ${name}`))
      .filter((entry) => { const name = entry.split(': ')[1]!; return !SYNTHETIC_METRICS.has(name) && !isExposed(name, families); });
    expect(unknown).toEqual([]);
  });

  it('the provisioning files point Grafana at the dashboards and a Prometheus data source', () => {
    const provider = parse(readFileSync(`${__dirname}/../../../deploy/grafana/provisioning/dashboards/service.yml`, 'utf8')) as Json;
    expect(provider.providers[0]).toMatchObject({ type: 'file', options: { path: expect.any(String) } });
    const datasources = parse(readFileSync(`${__dirname}/../../../deploy/grafana/provisioning/datasources/prometheus.yml`, 'utf8')) as Json;
    expect(datasources.datasources[0]).toMatchObject({ type: 'prometheus' });
  });
});
