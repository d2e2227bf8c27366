import { describe, expect, it } from 'vitest';
import { dashboardExpressions, isExposed, promqlMetricNames } from '../../helpers/promql-metric-names';

describe('promqlMetricNames', () => {
  it('finds names with matchers, with ranges and bare, and nothing else', () => {
    expect(promqlMetricNames('up{job="service-worker"} == 0')).toEqual(['up']);
    expect(promqlMetricNames('sum by (source) (rate(service_webhook_responses_total{code=~"5..", code!="503"}[5m])) / sum by (source) (rate(service_webhook_responses_total[5m])) > 0.05'))
      .toEqual(['service_webhook_responses_total']);
    expect(promqlMetricNames('time() - max(service_ticket_census_timestamp_seconds) > 600')).toEqual(['service_ticket_census_timestamp_seconds']);
    expect(promqlMetricNames('service_worker_cached_workflows')).toEqual(['service_worker_cached_workflows']);
  });

  it('ignores label names of grouping clauses, label values, functions, keywords, numbers and Grafana variables', () => {
    expect(promqlMetricNames('histogram_quantile(0.95, sum by (le, station) (rate(service_station_duration_seconds_bucket{job=~"$job"}[$__rate_interval])))'))
      .toEqual(['service_station_duration_seconds_bucket']);
    expect(promqlMetricNames('a_total offset 1h and on (instance) group_left (pod) b_info unless c 1e3 > bool 2'))
      .toEqual(['a_total', 'b_info', 'c']);
    expect(promqlMetricNames('sum(max_over_time(p{poller="workflow"}[5m])) == 0 or absent(p{job="w"})')).toEqual(['p']);
    expect(promqlMetricNames('sum without (instance) (x) * on(job) y')).toEqual(['x', 'y']);
  });

  it('collects the expressions of a dashboard, its rows and its query variables', () => {
    const dashboard = {
      templating: { list: [{ type: 'datasource', query: 'prometheus' }, { type: 'query', query: { query: 'label_values(first_total, job)' } }] },
      panels: [{ type: 'row', panels: [{ targets: [{ expr: 'rate(second_total[5m])' }] }] }, { targets: [{ expr: 'third' }, { expr: '' }] }],
    };
    expect(dashboardExpressions(dashboard).flatMap(promqlMetricNames).sort()).toEqual(['first_total', 'second_total', 'third']);
  });
});

describe('isExposed', () => {
  const families = new Map([['h_seconds', 'histogram'], ['s_seconds', 'summary'], ['c_total', 'counter']]);
  it('accepts families and the series of histograms and summaries', () => {
    expect(['c_total', 'h_seconds_bucket', 'h_seconds_sum', 'h_seconds_count', 's_seconds_count'].filter((name) => isExposed(name, families))).toHaveLength(5);
  });
  it('rejects unknown names and suffixes a counter does not have', () => {
    expect(['c_total_count', 's_seconds_bucket', 'missing', 'c_bucket'].filter((name) => isExposed(name, families))).toEqual([]);
  });
});
