import { describe, expect, it } from 'vitest';
import { containers } from '../../../../../app/engine/core/verify/telling/containers.js';
import { failureSignature } from '../../../../../app/engine/knowledge/signals/signature.js';
import { expectDistinctSignatures, expectReturnsOnHostileInput, recognised, signature } from './tool-output.js';

/** docker and Compose (test/fixtures/tool-output/docker/, compose/: daemon-less runs captured, the daemon's answers written from source). */
describe('containers', () => {
  it("the engine's words, wherever the output is, before a traceback's first exception", () => {
    expect(recognised('docker/daemon-not-running-ps.txt')).toEqual({
      line: 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?',
      tool: 'docker',
    });
    expect(recognised('compose/v1-daemon-not-running.txt')?.line).toMatch(/^docker\.errors\.DockerException: Error while fetching server API version/);
    expect(recognised('compose/v2-undefined-service.txt')).toEqual({
      line: 'service "web" depends on undefined service "db": invalid compose project',
      tool: 'compose',
    });
    expect(recognised('docker/error-response-conflict.txt')?.line).toMatch(
      /^docker: Error response from daemon: Conflict\. The container name "\/shop-db" is already in use/,
    );
    expect(containers.find(["Run 'docker run --help' for more information"])).toBeUndefined();
  });

  it('the same failure in two plans (other containers, ports, services) has one signature; different failures have different ones', () => {
    // Another plan's container, id and port.
    const port = containers.find([
      'docker: Error response from daemon: driver failed programming external connectivity on endpoint shop-cache (0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9): Bind for 0.0.0.0:6379 failed: port is already allocated.',
    ]);
    expect(failureSignature(port?.line)).toBe(signature('docker/error-response-port-allocated.txt'));
    const conflict = containers.find([
      'docker: Error response from daemon: Conflict. The container name "/billing-db" is already in use by container "0a1b2c3d4e5f". You have to remove (or rename) that container to be able to reuse that name.',
    ]);
    expect(failureSignature(conflict?.line)).toBe(signature('docker/error-response-conflict.txt'));
    expect(failureSignature(containers.find(["Service 'api' depends on service 'cache' which is undefined."])?.line)).toBe(
      signature('compose/v1-undefined-service.txt'),
    );
    expectDistinctSignatures(
      'docker/daemon-not-running-ps.txt',
      'docker/error-response-conflict.txt',
      'docker/error-response-port-allocated.txt',
      'docker/error-response-pull-denied.txt',
      'compose/v1-undefined-service.txt',
      'compose/v2-undefined-service.txt',
      'compose/v1-daemon-not-running.txt',
    );
  });

  it('returns on a 100 kB hostile line', () => {
    expectReturnsOnHostileInput(containers);
  });
});
