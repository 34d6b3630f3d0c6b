// The Dockerfile without Docker. No base image can be pulled where Switchboard is built, so the
// package test builds the image's file system from the Dockerfile's own instructions instead:
// each stage gets a folder standing for its root, COPY copies into it, RUN runs the stage's own
// shell commands with the image's absolute paths moved under that folder. Only what cannot run
// here is left out, and said: the base image (the machine's Node stands in for the image's) and
// the system packages a RUN installs with apt-get (checked to be present instead). An
// instruction this file does not know fails the build, so a new one cannot be skipped silently.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One instruction of a Dockerfile, continuation lines joined. */
interface Instruction {
  op: string;
  args: string;
}

interface Stage {
  name?: string;
  instructions: Instruction[];
}

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

/** The stages of a Dockerfile, in order. */
export function readStages(file: string): Stage[] {
  const stages: Stage[] = [];
  const lines = readFileSync(file, 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  for (const line of lines) {
    const [, op, args] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    if (!op) throw new Error(`Dockerfile: cannot read "${line}"`);
    const instruction = { op: op.toUpperCase(), args: args.trim() };
    if (instruction.op === 'FROM') {
      stages.push({ name: /\sAS\s+(\S+)$/i.exec(instruction.args)?.[1], instructions: [] });
    }
    if (stages.length === 0) throw new Error('Dockerfile: an instruction before FROM');
    stages[stages.length - 1].instructions.push(instruction);
  }
  return stages;
}

/** Reads the last stage of a Dockerfile (exec-form ENTRYPOINT, CMD and HEALTHCHECK only). */
export function readImageRun(file: string): ImageRun {
  const stages = readStages(file);
  const image: ImageRun = {
    env: {},
    user: 'root',
    workdir: '/',
    entrypoint: [],
    cmd: [],
    healthcheck: [],
    volumes: [],
  };
  for (const { op, args } of stages[stages.length - 1].instructions) {
    switch (op) {
      case 'ENV':
        for (const [, k, v] of args.matchAll(/(\w+)=(\S+)/g)) image.env[k] = v;
        break;
      case 'USER':
        image.user = args;
        break;
      case 'WORKDIR':
        image.workdir = args;
        break;
      case 'VOLUME':
        image.volumes.push(...args.split(/\s+/));
        break;
      case 'ENTRYPOINT':
        image.entrypoint = JSON.parse(args) as string[];
        break;
      case 'CMD':
        image.cmd = JSON.parse(args) as string[];
        break;
      case 'HEALTHCHECK':
        image.healthcheck = JSON.parse(args.slice(args.indexOf('CMD ') + 4)) as string[];
        break;
    }
  }
  return image;
}

/** The first folders of paths that belong to the machine, not to what the image adds. */
const SYSTEM = new Set([
  'bin',
  'dev',
  'etc',
  'home',
  'lib',
  'lib64',
  'opt',
  'proc',
  'root',
  'run',
  'sbin',
  'sys',
  'tmp',
  'usr',
  'var',
]);

/** A built image's file system: its root folder, and a path of the image there. */
export interface BuiltImage {
  root: string;
  /**
   * `/app/x` → `<root>/app/x`; the machine's own paths (`/usr/...`) and anything not an absolute
   * path (`serve`, `0.0.0.0`) stay as they are.
   */
  path(p: string): string;
  /** The root folder of each stage, by name or number. */
  stageRoots: Map<string, string>;
}

function inRoot(root: string, p: string): string {
  if (!p.startsWith('/')) return p;
  return SYSTEM.has(p.split('/')[1]) ? p : join(root, p);
}

/** Moves every image path in a shell command under `root` (`cd /app` → `cd <root>/app`). */
function commandInRoot(root: string, command: string): string {
  return command.replace(/(^|[\s=:'"(])(\/[\w.*-]+(?:\/[\w.*-]*)*)/g, (_m, before: string, p: string) => {
    return before + inRoot(root, p);
  });
}

export interface BuildOptions {
  /** The build context (the folder `docker build` is given). */
  context: string;
  /** An empty folder; each stage's root is made in it. */
  work: string;
  /** `chown` arguments of the image's users, as they can be here (`node:node` → `1000:1000`). */
  owners: Record<string, string>;
  /** Added to every RUN's environment (the machine's npm cache, preferred). */
  env?: NodeJS.ProcessEnv;
}

/** Builds every stage of the Dockerfile in folders; answers the last stage's file system. */
export async function buildWithoutDocker(file: string, opts: BuildOptions): Promise<BuiltImage> {
  const stageRoots = new Map<string, string>();
  let root = '';
  const stages = readStages(file);
  for (const [i, stage] of stages.entries()) {
    root = join(opts.work, `stage-${i}`);
    mkdirSync(root);
    stageRoots.set(String(i), root);
    if (stage.name) stageRoots.set(stage.name, root);
    let workdir = '/';
    const env: NodeJS.ProcessEnv = { ...process.env, ...opts.env };
    for (const { op, args } of stage.instructions) {
      switch (op) {
        case 'FROM':
        case 'EXPOSE':
        case 'VOLUME':
        case 'USER':
        case 'HEALTHCHECK':
        case 'ENTRYPOINT':
        case 'CMD':
          break; // Nothing to build: readImageRun reads what the image runs.
        case 'ENV':
          for (const [, k, v] of args.matchAll(/(\w+)=(\S+)/g)) env[k] = commandInRoot(root, v);
          break;
        case 'WORKDIR':
          workdir = isAbsolute(args) ? args : join(workdir, args);
          mkdirSync(inRoot(root, workdir), { recursive: true });
          break;
        case 'COPY':
          copy(args, { root, workdir, context: opts.context, stageRoots });
          break;
        case 'RUN':
          await runStep(args, { root, workdir, env, owners: opts.owners });
          break;
        default:
          throw new Error(`Dockerfile: ${op} is not built outside Docker; teach test/helpers/dockerfile.ts`);
      }
    }
  }
  return { root, path: (p) => inRoot(root, p), stageRoots };
}

function copy(
  args: string,
  at: { root: string; workdir: string; context: string; stageRoots: Map<string, string> },
): void {
  const words = args.split(/\s+/);
  const from = words[0].startsWith('--from=') ? words.shift()!.slice('--from='.length) : undefined;
  if (words.some((w) => w.startsWith('--'))) throw new Error(`Dockerfile: COPY ${args}: unknown option`);
  const dest = words.pop()!;
  const target = inRoot(at.root, isAbsolute(dest) ? dest : join(at.workdir, dest));
  const source = (s: string) => {
    if (from === undefined) return join(at.context, s);
    const fromRoot = at.stageRoots.get(from);
    if (!fromRoot) throw new Error(`Dockerfile: COPY --from=${from}: no such stage`);
    return join(fromRoot, s);
  };
  const intoFolder = dest.endsWith('/') || words.length > 1;
  for (const s of words) {
    // A folder's contents are copied, not the folder itself (as `docker build` does).
    const file = !statSync(source(s)).isDirectory();
    const to = intoFolder && file ? join(target, s.split('/').pop()!) : target;
    // Symbolic links stay as they are (node_modules/.bin), as in an image layer.
    cpSync(source(s), to, { recursive: true, verbatimSymlinks: true });
  }
}

async function runStep(
  command: string,
  at: { root: string; workdir: string; env: NodeJS.ProcessEnv; owners: Record<string, string> },
): Promise<void> {
  if (/^apt-get\s/.test(command)) return checkSystemPackages(command);
  let shell = commandInRoot(at.root, command);
  for (const [owner, here] of Object.entries(at.owners)) {
    shell = shell.replace(new RegExp(`(\\bchown\\s+(?:-\\w+\\s+)*)${owner}\\b`, 'g'), `$1${here}`);
  }
  try {
    await run('sh', ['-c', shell], {
      cwd: inRoot(at.root, at.workdir),
      env: at.env,
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`Dockerfile: RUN ${command}\nfailed as: ${shell}\n${err.stderr ?? err.message}`, {
      cause: e,
    });
  }
}

/** An apt-get step is not run (it would change this machine): what it installs must be here. */
async function checkSystemPackages(command: string): Promise<void> {
  const install = /apt-get install((?:\s+[^\s&;]+)+)/.exec(command);
  const packages = (install?.[1].trim().split(/\s+/) ?? []).filter((p) => !p.startsWith('-'));
  for (const p of packages) {
    await run('sh', ['-c', `command -v ${p}`]).catch(() => {
      throw new Error(`Dockerfile: the image installs ${p}, which this machine lacks`);
    });
  }
}
