import { Counter, Gauge, Histogram, Summary } from 'prom-client';
import { describe, expect, it } from 'vitest';
import * as metrics from '../../../src/telemetry/metrics.js';

describe('the metrics registry', () => {
  it('should hold every metric the module exports, so /metrics shows each one', () => {
    const exported = Object.entries(metrics).filter(([, m]) => m instanceof Counter || m instanceof Gauge || m instanceof Histogram || m instanceof Summary);
    expect(exported.length).toBeGreaterThan(10);
    const registered = new Set(metrics.registry.getMetricsAsArray().map((m) => m.name));
    const missing = exported.map(([name, m]) => [name, (m as unknown as { name: string }).name]).filter(([, metric]) => !registered.has(metric as string));
    expect(missing).toEqual([]);
  });
});
