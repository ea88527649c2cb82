import { prepare, unframed, type Recogniser } from './recogniser.js';

/**
 * Containers: the docker CLI (`Cannot connect to the Docker daemon at …`, `docker: Error
 * response from daemon: …`, `Error: No such container: …`), Compose v2 (`service "web" depends
 * on undefined service "db": invalid compose project`, `validating …: …`) and Compose v1
 * (`Service 'web' depends on service 'db' which is undefined.`, docker-py's
 * `docker.errors.DockerException: …` at the end of its traceback).
 */

const DOCKER: readonly RegExp[] = [
  /^(?:docker: )?Cannot connect to the Docker daemon at \S/,
  /^(?:docker: |ERROR: )?Error response from daemon: \S/,
  /^Error: No such (?:container|image|object|volume|network): \S/,
  /^docker: (?!Error response)\S/,
];
const COMPOSE: readonly RegExp[] = [
  /^service "[^"]*" depends on undefined service "[^"]*"/,
  /^Service '[^']*' depends on service '[^']*' which is undefined/,
  /^validating \S+: \S/,
  /^no configuration file provided: not found/,
  /^(?:ERROR: )?The Compose file '[^']*' is invalid because/,
  /^(?:ERROR: )?Couldn't connect to Docker daemon/,
  /^(?:ERROR: for \S+ +)?Cannot start service \S+: \S/,
  /^docker\.errors\.\w+: \S/,
];

export const containers: Recogniser = {
  name: 'containers',
  find(output) {
    const lines = prepare(output);
    for (let at = 0; at < lines.length; at++) {
      const line = unframed(lines[at]!);
      if (line.startsWith("docker: 'Run ") || line.startsWith("Run 'docker")) continue;
      if (DOCKER.some((re) => re.test(line))) return { at, line, tool: 'docker' };
      if (COMPOSE.some((re) => re.test(line))) return { at, line, tool: 'compose' };
    }
    return undefined;
  },
};
