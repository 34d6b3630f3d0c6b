// Rewrites the generated reference of docs/provisioning.md: npx tsx test/api/voice/provisioning/regenerate-docs.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { describeProvisioning } from '../../../../src/api/voice/provisioning/describe.js';

const file = new URL('../../../../docs/provisioning.md', import.meta.url);
const doc = readFileSync(file, 'utf8');
const start = '<!-- generated:start -->\n';
const end = '\n<!-- generated:end -->';
const a = doc.indexOf(start);
const b = doc.indexOf(end);
if (a < 0 || b < a) throw new Error('docs/provisioning.md has no generated section');
writeFileSync(file, `${doc.slice(0, a + start.length)}${describeProvisioning().trim()}\n${doc.slice(b)}`);
