import type { ServiceMetrics } from '../metrics/service-metrics';

/** Token counts of one model call (or of all the calls of one invocation, summed). */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/**
 * What the model client reports, kept to plain callbacks so the client does not depend on a metrics library (and
 * tests can count calls). Every provider request is one latency observation with service="llm"
 * (service_external_api_latency_seconds); every invocation as a whole, fallbacks included, one agent duration
 * (service_agent_duration_seconds).
 */
export interface ModelMetrics {
  observeLatency(service: 'llm', seconds: number): void;
  observeAgentDuration(seconds: number): void;
  /** Token usage per provider request, with the target it was spent on. */
  observeUsage?(usage: TokenUsage & { target: string }): void;
}

/** The worker's prom-client histograms behind the ModelMetrics callbacks. */
export function modelMetricsFrom(metrics: Pick<ServiceMetrics, 'externalApiLatency' | 'agentDuration'>): ModelMetrics {
  return {
    observeLatency: (service, seconds) => metrics.externalApiLatency.observe({ service }, seconds),
    observeAgentDuration: (seconds) => metrics.agentDuration.observe(seconds),
  };
}
