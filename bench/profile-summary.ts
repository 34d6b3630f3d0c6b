// Summarises a V8 CPU profile (`node --cpu-prof`): self time by function and by file or package,
// counted from the first sample taken in an HTTP request (start-up is left out).
// Run: npx tsx bench/profile-summary.ts <file.cpuprofile> [requests] [rows]
// With the number of requests served while profiling, times are printed per request.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, requestsArg, rowsArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: npx tsx bench/profile-summary.ts <file.cpuprofile> [requests] [rows]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const requests = Number(requestsArg ?? 0);
const rows = Number(rowsArg ?? 30);

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const shortUrl = (url: string) =>
  url.replace(/^file:\/\/.*?\/(dist|src)\//, '$1/').replace(/^.*node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1');
const inRequest = (id: number) => {
  for (let c: number | undefined = id; c !== undefined; c = parent.get(c)) {
    if (byId.get(c)!.callFrame.functionName === 'parserOnHeadersComplete') return true;
  }
  return false;
};

const start = Math.max(0, profile.samples.findIndex(inRequest));
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
let busy = 0;
let idle = 0;
for (let i = start; i < profile.samples.length; i++) {
  const { callFrame } = byId.get(profile.samples[i])!;
  const micros = profile.timeDeltas[i] ?? 0;
  if (callFrame.functionName === '(idle)') {
    idle += micros;
    continue;
  }
  busy += micros;
  const where = shortUrl(callFrame.url);
  const fn = `${callFrame.functionName || '(anonymous)'} ${where}${where ? `:${callFrame.lineNumber + 1}` : ''}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + micros);
  const fileKey = where.startsWith('node:') ? 'node internals' : where || callFrame.functionName;
  byFile.set(fileKey, (byFile.get(fileKey) ?? 0) + micros);
}

const unit = requests > 0 ? 'µs/request' : 'ms';
const show = (micros: number) => (requests > 0 ? micros / requests : micros / 1000).toFixed(2).padStart(9);
function table(title: string, m: Map<string, number>) {
  console.log(`\n${title} (${unit}, share of busy time)`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    console.log(`${show(v)}  ${((100 * v) / busy).toFixed(1).padStart(5)}%  ${k}`);
  }
}
console.log(`busy ${show(busy)} ${unit}, idle ${show(idle)} ${unit}`);
table('self time by function', byFunction);
table('self time by file or package', byFile);
