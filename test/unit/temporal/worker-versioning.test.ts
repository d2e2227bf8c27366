import { describe, expect, it } from 'vitest';
import { workerDeploymentOptions, workerVersionFromEnv } from '../../../src/temporal/worker-versioning';

describe('worker deployment versioning from the environment', () => {
  it('is off when neither variable is set, and on with both', () => {
    expect(workerVersionFromEnv({})).toEqual({ ok: true, version: null });
    expect(workerDeploymentOptions(null)).toBeUndefined();
    const on = workerVersionFromEnv({ SERVICE_DEPLOYMENT_NAME: 'service', SERVICE_BUILD_ID: '2026-11-25.1' });
    expect(on).toEqual({ ok: true, version: { deploymentName: 'service', buildId: '2026-11-25.1' } });
    expect(workerDeploymentOptions(on.ok ? on.version : null)).toEqual({
      useWorkerVersioning: true, version: { deploymentName: 'service', buildId: '2026-11-25.1' }, defaultVersioningBehavior: 'AUTO_UPGRADE',
    });
  });

  it('names the missing half and a deployment name Temporal cannot take', () => {
    expect(workerVersionFromEnv({ SERVICE_BUILD_ID: 'b1' })).toEqual({ ok: false, problem: 'SERVICE_DEPLOYMENT_NAME and SERVICE_BUILD_ID turn on Worker Deployment Versioning together; only SERVICE_BUILD_ID is set' });
    expect(workerVersionFromEnv({ SERVICE_DEPLOYMENT_NAME: 'service', SERVICE_BUILD_ID: ' ' })).toMatchObject({ ok: false, problem: expect.stringContaining('only SERVICE_DEPLOYMENT_NAME is set') });
    expect(workerVersionFromEnv({ SERVICE_DEPLOYMENT_NAME: 'a.b', SERVICE_BUILD_ID: 'b1' })).toMatchObject({ ok: false, problem: expect.stringContaining('must not contain ".') });
  });
});
