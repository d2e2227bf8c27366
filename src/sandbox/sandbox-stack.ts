import { randomBytes } from 'node:crypto';
import { startScmhostSimulator, type ScmhostSimulator } from './scmhost-simulator/scmhost-simulator';
import { startTrackerSimulator, type TrackerSimulator } from './tracker-simulator/tracker-simulator';

export const SANDBOX_PROJECT = 'SBX';
export const SANDBOX_REPOSITORY = 'sandbox/app';

export interface Sandbox {
  tracker: TrackerSimulator;
  scmhost: ScmhostSimulator;
  /** The variables that point the service at the simulators (merged over the caller's environment). */
  env: Record<string, string>;
  /** Once the gateway listens: the simulators send their signed webhooks to it. */
  connect(gatewayUrl: string): void;
  describe(): string[];
  close(): Promise<void>;
}

/**
 * `service dev --sandbox`: the tracker and source-host simulators on loopback, a configured project and repository,
 * and webhook secrets made up for this run, so the whole service can be driven locally without real accounts.
 */
export async function startSandbox(options: { host?: string } = {}): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1';
  const tracker = await startTrackerSimulator({ host, port: 0, projects: [SANDBOX_PROJECT] });
  const scmhost = await startScmhostSimulator({ host, port: 0, repositories: [SANDBOX_REPOSITORY] });
  tracker.state.setProperty(tracker.state.project(SANDBOX_PROJECT).properties, 'service.repos', [SANDBOX_REPOSITORY]);
  tracker.state.setProperty(tracker.state.project(SANDBOX_PROJECT).properties, 'service.default_repo', SANDBOX_REPOSITORY);
  const secret = () => randomBytes(16).toString('hex');
  const env = {
    TRACKER_BASE_URL: tracker.url,
    TRACKER_USER_EMAIL: 'service@sandbox.local',
    TRACKER_API_TOKEN: `sandbox-${secret()}`,
    TRACKER_WEBHOOK_SECRET: secret(),
    SCMHOST_API_URL: scmhost.url,
    SCMHOST_TOKEN: `sandbox-${secret()}`,
    SCMHOST_WEBHOOK_SECRET: secret(),
    SCMHOST_KNOWN_REPOS: SANDBOX_REPOSITORY,
    SCMHOST_BOT_LOGIN: 'service-bot',
  };
  return {
    tracker,
    scmhost,
    env,
    connect(gatewayUrl) {
      tracker.webhooks.setTarget({ url: `${gatewayUrl}/api/v1/webhooks/tracker`, secret: env.TRACKER_WEBHOOK_SECRET });
      scmhost.webhooks.setTarget({ url: `${gatewayUrl}/api/v1/webhooks/scmhost`, secret: env.SCMHOST_WEBHOOK_SECRET });
    },
    describe() {
      return [
        `  Sandbox      tracker ${tracker.url} (project ${SANDBOX_PROJECT}), source host ${scmhost.url} (repository ${SANDBOX_REPOSITORY})`,
        `               create a managed ticket: curl -u any@sandbox.local:any -H 'content-type: application/json' \\`,
        `                 -d '{"fields":{"project":{"key":"${SANDBOX_PROJECT}"},"issuetype":{"name":"Feature"},"summary":"Try me","labels":["service:managed"]}}' \\`,
        `                 ${tracker.url}/rest/api/3/issue`,
      ];
    },
    async close() {
      await Promise.all([tracker.close(), scmhost.close()]);
    },
  };
}
