import { readFileSync } from 'node:fs';

/** What the Dockerfile's last stage runs: the part of the image a test can run without Docker. */
export interface ImageRun {
  env: Record<string, string>;
  user: string;
  workdir: string;
  entrypoint: string[];
  cmd: string[];
  healthcheck: string[];
  volumes: string[];
}

/** Reads the last stage of a Dockerfile (exec-form ENTRYPOINT, CMD and HEALTHCHECK only). */
export function readImageRun(file: string): ImageRun {
  const joined = readFileSync(file, 'utf8').replace(/\\\n/g, ' ');
  const lines = joined
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const lastFrom = lines.map((l) => /^FROM\s/i.test(l)).lastIndexOf(true);
  const run: ImageRun = {
    env: {},
    user: 'root',
    workdir: '/',
    entrypoint: [],
    cmd: [],
    healthcheck: [],
    volumes: [],
  };
  for (const line of lines.slice(lastFrom + 1)) {
    const [, instruction, rest] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    switch (instruction?.toUpperCase()) {
      case 'ENV':
        for (const [, k, v] of rest.matchAll(/(\w+)=(\S+)/g)) run.env[k] = v;
        break;
      case 'USER':
        run.user = rest.trim();
        break;
      case 'WORKDIR':
        run.workdir = rest.trim();
        break;
      case 'VOLUME':
        run.volumes.push(...rest.trim().split(/\s+/));
        break;
      case 'ENTRYPOINT':
        run.entrypoint = JSON.parse(rest) as string[];
        break;
      case 'CMD':
        run.cmd = JSON.parse(rest) as string[];
        break;
      case 'HEALTHCHECK':
        run.healthcheck = JSON.parse(rest.slice(rest.indexOf('CMD ') + 4)) as string[];
        break;
    }
  }
  return run;
}
