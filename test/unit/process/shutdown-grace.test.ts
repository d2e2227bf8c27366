import { describe, expect, it } from 'vitest';
import { loadServiceConfig } from '../../../src/config/service-config';
import { ConfigurationError, startupConfig } from '../../../src/config/startup-config';
import { workerShutdownTimes } from '../../../src/process/shutdown-grace';

describe('SERVICE_SHUTDOWN_GRACE_SECONDS', () => {
  it('defaults to 30 s and takes whole seconds from 0 (cancel at once) to an hour', () => {
    expect(loadServiceConfig({}).config?.shutdown.graceSeconds).toBe(30);
    expect(loadServiceConfig({ SERVICE_SHUTDOWN_GRACE_SECONDS: '0' }).config?.shutdown.graceSeconds).toBe(0);
    expect(loadServiceConfig({ SERVICE_SHUTDOWN_GRACE_SECONDS: ' 3600 ' }).config?.shutdown.graceSeconds).toBe(3600);
  });

  it.each(['soon', '-1', '2.5', '3601', '30s'])('refuses %j with one problem naming the variable', (value) => {
    const result = loadServiceConfig({ SERVICE_SHUTDOWN_GRACE_SECONDS: value });
    expect(result.config).toBeUndefined();
    expect(result.problems).toEqual([`SERVICE_SHUTDOWN_GRACE_SECONDS: expected a whole number from 0 to 3600, got "${value}"`]);
  });

  it('stops startup with that one line', () => {
    let error: unknown;
    try {
      startupConfig({ SERVICE_SHUTDOWN_GRACE_SECONDS: 'soon' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).problems).toEqual(['configuration error: SERVICE_SHUTDOWN_GRACE_SECONDS: expected a whole number from 0 to 3600, got "soon"']);
  });
});

describe('workerShutdownTimes', () => {
  it('gives running activities the grace, and the shutdown as a whole a margin on top for cancelled ones', () => {
    expect(workerShutdownTimes(30)).toEqual({ shutdownGraceTime: '30s', shutdownForceTime: '45s', containerRemovalMs: 15_000 });
    expect(workerShutdownTimes(0)).toEqual({ shutdownGraceTime: '0s', shutdownForceTime: '15s', containerRemovalMs: 15_000 });
  });
});
