import { describe, expect, it } from 'vitest';
import { containerName, containerRunArgs, type ContainerSpec } from '../../../src/containers/container-args';

const spec: ContainerSpec = {
  name: 'service-acme-1-x', image: 'service-dev:latest', memory: '4g', cpus: 2, pids: 1024,
  labels: { 'service.ticket': 'ACME-1', 'service.run': 'run-1' }, workspaceDir: '/w/ws', runDir: '/w/run', agentPath: '/a/agent.cjs',
  egress: false, command: ['node', '/opt/service/agent.cjs'],
};

describe('the podman run command line of a task container', () => {
  it('has no network, no capabilities, the limits, the labels and only three mounts by default', () => {
    const args = containerRunArgs(spec);
    const joined = args.join(' ');
    expect(joined).toContain('--network none');
    expect(joined).toContain('--runtime runc');
    expect(joined).toContain('--memory 4g --cpus 2 --pids-limit 1024');
    expect(joined).toContain('--cap-drop all --security-opt no-new-privileges');
    expect(joined).toContain('--label service.ticket=ACME-1');
    expect(joined).toContain('--label service.run=run-1');
    expect(args.filter((a) => a === '-v')).toHaveLength(3);
    expect(joined).toContain('/a/agent.cjs:/opt/service/agent.cjs:ro');
    expect(args).not.toContain('--env');
    expect(args.slice(-3)).toEqual(['service-dev:latest', 'node', '/opt/service/agent.cjs']);
  });

  it('gives network without the host loopback only when egress is opted in', () => {
    expect(containerRunArgs({ ...spec, egress: true }).join(' ')).toContain('--network slirp4netns:allow_host_loopback=false');
  });

  it('names containers podman accepts and that say whose they are', () => {
    const name = containerName('ACME-12', '0195c3ab-1234-7abc-9def-0123456789ab', 'execute_task_changes', '1-abc');
    expect(name).toMatch(/^service-acme-12-execute_task_changes-0195c3ab-123-1-abc$/);
    expect(containerName('A/B C', 'r', 'n', 's')).toMatch(/^[a-z0-9_.-]+$/);
  });
});
