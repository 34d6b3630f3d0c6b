// Which test files the cluster pass of scripts/test.mjs runs (issue 16: every black-box suite also
// runs against a two-node cluster, each request sent to a node chosen at random). A black-box
// suite is a file under test/api/ that starts a test server (startTestServer or suiteServer,
// directly or through a helper of its own folder); under SWITCHBOARD_TEST_CLUSTER=2 that server
// is two cluster nodes behind test/helpers/random-proxy.ts. Files that run the CLI or child
// processes only would run the same as in the normal pass and are left out by that rule.
//
// EXCLUDED is the one list of black-box suites that do not run in the cluster pass, each with why.
// `proxy`: the test proxy cannot carry what the suite tests (none now: with TLS it passes each
// connection through to a node, so the nodes' own TLS is what a suite tests). `internals`: the
// suite reaches into the runtime of one in-process server (its bus, clock object, limits, store
// or SQLite file), which the proxy's other node is out of reach of: it cannot be a black-box test
// against a cluster. `bug`: a node answers differently from a single node; the
// entry names the bug, which is to be fixed in src (then the entry goes). Keep both short.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

export const EXCLUDED = [
  // internals
  [
    'test/api/voice/auth-limits.test.ts',
    'internals',
    "counts in-flight requests in one node's limits (limitsFor(server.runtime)) and tests --limit-inflight, per node by design; across nodes: test/cluster/security.test.ts, test/cluster/request-limits.test.ts",
  ],
  [
    'test/api/security/small-things.test.ts',
    'internals',
    "reads the SQLite file's mode and one node's authenticator",
  ],
  [
    'test/api/voice/events.test.ts',
    'internals',
    "publishes events straight onto one node's bus (server.runtime.bus)",
  ],
  [
    'test/api/voice/resume.test.ts',
    'internals',
    "publishes presence events onto one node's bus (test/helpers/resume.ts) and restarts a server on its own SQLite file",
  ],
  [
    'test/api/voice/webhooks/webhooks.test.ts',
    'internals',
    "advances one node's clock object (server.runtime.clock), not the cluster's clock",
  ],
  [
    'test/api/voice/webhooks/webhook-guard.test.ts',
    'internals',
    "advances one node's clock object (server.runtime.clock), not the cluster's clock",
  ],
  [
    'test/api/voice/provisioning/restart.test.ts',
    'internals',
    'restarts a server on its own SQLite file (a cluster run starts a fresh database each time)',
  ],
  [
    'test/api/voice/provisioning/ids-never-reused.test.ts',
    'internals',
    'restarts a server on its own SQLite file (a cluster run starts a fresh database each time)',
  ],
  ['test/api/ccs/operations.test.ts', 'internals', "reads one node's switch (presence, legs) directly"],
  [
    'test/api/ccs/reset.test.ts',
    'internals',
    "sets and reads one node's switch and contact-center counters directly",
  ],
  ['test/api/sim/sim-api.test.ts', 'internals', "calls one node's contact center and call records directly"],
  [
    'test/api/foundation/signals-and-reset.test.ts',
    'internals',
    "writes one node's directory and reads its call records directly",
  ],
  [
    'test/api/operations/cluster.test.ts',
    'internals',
    'GET /cluster of a standalone server and of cluster nodes it composes itself',
  ],
  ['test/api/docs/examples.test.ts', 'internals', 'binds a contract checker of its own to one runtime'],
  [
    'test/api/ccs/resume.test.ts',
    'internals',
    'its last suite restarts a server on its own SQLite file (a cluster run starts a fresh database each time)',
  ],
  [
    'test/api/client/resume.test.ts',
    'internals',
    "publishes presence events onto one node's bus (test/helpers/resume.ts)",
  ],
  [
    'test/api/operations/metrics.test.ts',
    'internals',
    "reads GET /metrics, each node's own by design (an operator scrapes every node); behind the proxy a scrape reaches one node at random",
  ],
  // bugs: a node answers differently
].map(([file, kind, reason]) => ({ file, kind, reason }));

const STARTS_SERVER = /\b(startTestServer|suiteServer)\(/;

/** Whether `file` or a helper it imports from its own test folder tree starts a test server. */
function startsTestServer(file, seen = new Set()) {
  if (seen.has(file) || !existsSync(file)) return false;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  if (STARTS_SERVER.test(text)) return true;
  for (const m of text.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)) {
    const dep = join(dirname(file), `${m[1]}.ts`);
    // test/helpers defines the server itself and the cluster tests' helpers: not a suite's own.
    if (dep.split(sep).includes('helpers')) continue;
    if (startsTestServer(dep, seen)) return true;
  }
  return false;
}

/** The files of `files` the cluster pass runs, and the excluded ones among them with why. */
export function clusterPass(files, cwd = process.cwd()) {
  const rel = (f) => relative(cwd, f).split(sep).join('/');
  const excluded = new Map(EXCLUDED.map((e) => [e.file, e.reason]));
  const run = [];
  const skipped = [];
  for (const f of files) {
    const r = rel(f);
    if (!r.startsWith('test/api/') || !startsTestServer(f)) continue;
    if (excluded.has(r)) skipped.push({ file: r, reason: excluded.get(r) });
    else run.push(f);
  }
  return { run, skipped };
}
