import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { loadDevStackConfig, planDevServer, resolveStackFile } from '../temporal/dev-stack-config';
import { projectRoot } from '../temporal/temporal-cli-locator';
import { readStateFile } from './sandbox-state-file';

export const SANDBOX_PROJECT = 'SBX';
export const SANDBOX_REPOSITORY = 'sandbox/app';
/** The tracker project whose tickets the service delivers to the GitLab simulator's project. */
export const SANDBOX_GITLAB_TRACKER_PROJECT = 'GLB';
export const SANDBOX_GITLAB_PROJECT = 'sandbox/gitlab-app';
/** The environment variables the sandbox's repository registry names for the GitLab connection. */
export const SANDBOX_GITLAB_TOKEN_ENV = 'SANDBOX_GITLAB_TOKEN';
export const SANDBOX_GITLAB_WEBHOOK_SECRET_ENV = 'SANDBOX_GITLAB_WEBHOOK_SECRET';
export const SANDBOX_MODEL = 'sandbox-model';
export const SANDBOX_BOT_LOGIN = 'service-bot';
/** The person the `service sandbox` commands act as on the source host (the tracker takes any e-mail). */
export const SANDBOX_REVIEWER_LOGIN = 'octo-reviewer';
export const SANDBOX_PERSON_EMAIL = 'pat@example.com';
/** The service's own tracker account in the sandbox (TRACKER_USER_EMAIL): no `--as` may speak for it. */
export const SANDBOX_SERVICE_EMAIL = 'service@sandbox.local';

/** What `<data dir>/sandbox/sandbox.json` holds: made up once, kept so a restart keeps addresses and secrets. */
export interface SandboxSettings {
  version: 1;
  secrets: {
    TRACKER_API_TOKEN: string;
    TRACKER_WEBHOOK_SECRET: string;
    SCMHOST_TOKEN: string;
    SCMHOST_WEBHOOK_SECRET: string;
    /** The token of the person who reviews on the source host (`service sandbox approve --pr`). */
    reviewer_token: string;
    /** The read API's operator token (absent in settings written before it existed: made up at the next start). */
    SERVICE_OPERATOR_TOKEN?: string;
    /**
     * The key of the source host's person tokens (scmhost-simulator/person-tokens.ts), which `service sandbox ... --as`
     * derives from it (absent in settings written before it existed: made up at the next start).
     */
    person_token_secret?: string;
    /** The service's GitLab token and the GitLab hooks' secret (absent in settings written before GitLab was in the sandbox). */
    gitlab_token?: string;
    gitlab_webhook_secret?: string;
  };
  ports: { tracker: number; scmhost: number; model: number; gitlab?: number };
  /** Written at every start, read by `service sandbox ...`. */
  urls: { tracker: string; scmhost: string; model?: string; gateway?: string; gitlab?: string };
}

export function newSandboxSettings(): SandboxSettings {
  const secret = () => randomBytes(16).toString('hex');
  return {
    version: 1,
    secrets: {
      TRACKER_API_TOKEN: `sandbox-${secret()}`,
      TRACKER_WEBHOOK_SECRET: secret(),
      SCMHOST_TOKEN: `sandbox-${secret()}`,
      SCMHOST_WEBHOOK_SECRET: secret(),
      reviewer_token: `sandbox-${secret()}`,
      SERVICE_OPERATOR_TOKEN: `sandbox-${secret()}`,
      person_token_secret: secret(),
      gitlab_token: `sandbox-${secret()}`,
      gitlab_webhook_secret: secret(),
    },
    ports: { tracker: 0, scmhost: 0, model: 0, gitlab: 0 },
    urls: { tracker: '', scmhost: '' },
  };
}

export function sandboxSettingsFile(stateDir: string): string {
  return join(stateDir, 'sandbox.json');
}

export function readSandboxSettings(stateDir: string): SandboxSettings | undefined {
  return readStateFile<SandboxSettings>(sandboxSettingsFile(stateDir));
}

/** The sandbox's folder for a data directory given the way `service dev` takes it (flag, else the stack file). */
export function sandboxStateDir(options: { dataDir?: string; config: string }): string {
  const root = projectRoot();
  const plan = planDevServer(loadDevStackConfig(resolveStackFile(options.config, root)), root, { dataDir: options.dataDir });
  return join(plan.dataDir, 'sandbox');
}
