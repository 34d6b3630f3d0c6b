import { createHash } from 'node:crypto';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openApiPath } from '../../src/api/schema/openapi.js';
import { isApiRoute } from '../../src/server/app.js';
import type { Runtime } from '../../src/server/runtime.js';
import type { ObservedResponse, SocketChannel, TrafficObserver } from '../../src/server/traffic.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

const JSON_TYPE = /^application\/([a-z.+-]*\+)?json\b/;

type Doc = Record<string, any>;

interface LoadedDocs {
  ajv: Ajv2020;
  openapi: { name: string; doc: Doc }[];
  /** Validators of the frames each socket sends. */
  frames: Map<SocketChannel, { name: string; validate: ValidateFunction }[]>;
}

/** Compiled documents, shared by every server of a test file that publishes the same documents. */
const cache = new Map<string, LoadedDocs>();

function load(runtime: Runtime): LoadedDocs {
  const docs = runtime.docs.list().map((d) => ({ ...d, doc: runtime.docs.document(d.name)! as Doc }));
  const key = createHash('sha1').update(JSON.stringify(docs)).digest('hex');
  const hit = cache.get(key);
  if (hit) return hit;
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  for (const d of docs) ajv.addSchema(d.doc, d.name);
  const frames = new Map<SocketChannel, { name: string; validate: ValidateFunction }[]>();
  for (const d of docs.filter((x) => x.kind === 'asyncapi')) {
    const sends = (d.doc.operations?.serverSends?.messages ?? []) as { $ref: string }[];
    const validators = sends.map((m) => {
      const name = m.$ref.split('/').pop()!;
      return { name, validate: ajv.compile({ $ref: `${d.name}#/components/messages/${name}/payload` }) };
    });
    frames.set(d.name as SocketChannel, validators);
  }
  const loaded = { ajv, openapi: docs.filter((d) => d.kind === 'openapi'), frames };
  cache.set(key, loaded);
  return loaded;
}

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/**
 * Checks every response and socket frame of a test server against the OpenAPI and AsyncAPI
 * documents that server publishes. Any mismatch is a violation, reported when the server stops.
 */
export class ContractChecker implements TrafficObserver {
  readonly violations: string[] = [];
  private runtime: Runtime | undefined;
  private loaded: LoadedDocs | undefined;

  bind(runtime: Runtime): void {
    this.runtime = runtime;
  }

  private docs(): LoadedDocs {
    this.loaded ??= load(this.runtime!);
    return this.loaded;
  }

  response(r: ObservedResponse): void {
    if (r.method === 'HEAD' || !r.route || !isApiRoute(r.route)) return;
    const type = r.contentType?.split(';')[0]?.trim().toLowerCase();
    const isJson = type !== undefined && JSON_TYPE.test(type);
    if (!isJson && r.body.length > 0) return; // static pages under /api/browser etc.
    const { ajv, openapi } = this.docs();
    const path = openApiPath(r.route);
    const method = r.method.toLowerCase();
    const owner = openapi.find((d) => d.doc.paths?.[path]?.[method]);
    const where = `${r.method} ${r.url} → ${r.status}`;
    // A verb a path does not support answers 405 with Allow; such verbs are not operations.
    if (!owner && r.status === 405) return;
    if (!owner) return void this.violations.push(`${where}: ${r.method} ${path} is in no OpenAPI document`);
    const responses = owner.doc.paths[path][method].responses as Record<string, Doc>;
    const status = String(r.status);
    const key = [status, `${status[0]}XX`, 'default'].find((k) => responses[k]);
    if (!key) return void this.violations.push(`${where}: status ${status} is not documented`);
    const content = responses[key]!.content as Record<string, Doc> | undefined;
    if (r.body.length === 0) return;
    if (!content) return void this.violations.push(`${where}: documented without a body, sent ${type}`);
    if (!type || !content[type]) {
      return void this.violations.push(
        `${where}: content type ${type} is not documented (${Object.keys(content).join(', ')})`,
      );
    }
    const ref = `${owner.name}#/${pointer('paths', path, method, 'responses', key, 'content', type, 'schema')}`;
    const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
    const body = JSON.parse(r.body);
    if (!validate(body)) {
      this.violations.push(`${where}: ${ajv.errorsText(validate.errors)}; body ${r.body.slice(0, 400)}`);
    }
  }

  frame(channel: SocketChannel, text: string): void {
    const candidates = this.docs().frames.get(channel);
    if (!candidates) return void this.violations.push(`${channel}: no AsyncAPI document`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return void this.violations.push(`${channel}: frame is not JSON: ${text.slice(0, 200)}`);
    }
    if (!candidates.some((c) => c.validate(value))) {
      this.violations.push(`${channel}: frame matches no message of the document: ${text.slice(0, 400)}`);
    }
  }

  /** Throws when anything did not match, naming the first few mismatches. */
  assertClean(): void {
    if (this.violations.length === 0) return;
    const shown = this.violations.slice(0, 8).map((v) => `  - ${v}`);
    const more = this.violations.length > 8 ? [`  … and ${this.violations.length - 8} more`] : [];
    throw new Error(['Traffic does not match the published API documents:', ...shown, ...more].join('\n'));
  }
}
