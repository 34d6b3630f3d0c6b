// Saves the answer of every read of `bench:reads` (status, content type, body; each read twice, so
// a cached second answer is saved too) into one file, to compare two builds byte for byte:
// `npx tsx bench/reads-bodies.ts <out.json>` on each build, then diff the two files.
import { writeFileSync } from 'node:fs';
import { startSwitchboard, tempDb } from './lib.js';
import { discoverReads, UNLIMITED } from './reads-lib.js';

const out = process.argv[2] ?? 'reads-bodies.json';
const sb = await startSwitchboard(tempDb('bodies'), UNLIMITED, undefined);
const base = `http://127.0.0.1:${sb.port}`;
const { reads, close } = await discoverReads(base, { maxVoiceRoutes: 200 });
const saved: Record<string, unknown> = {};
for (const r of reads) {
  const answers = [];
  for (let i = 0; i < 2; i++) {
    const res = await fetch(r.url, { headers: r.headers });
    answers.push({ status: res.status, type: res.headers.get('content-type'), body: await res.text() });
  }
  saved[`${r.name} ${r.url.slice(base.length)}`] = answers;
}
writeFileSync(out, JSON.stringify(saved, null, 1));
console.log(`${reads.length} reads saved to ${out}`);
close();
await sb.stop();
process.exit(0);
