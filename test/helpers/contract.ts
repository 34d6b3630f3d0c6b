import { createHash } from 'node:crypto';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { EMPTY_BODY_ALLOWED, openApiPath } from '../../src/api/schema/openapi.js';
import { DOCUMENTED_PREFIXES, isApiRoute } from '../../src/server/app.js';
import type { Runtime } from '../../src/server/runtime.js';
import type { ObservedResponse, SocketChannel, TrafficObserver } from '../../src/api/transport/traffic.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

const JSON_TYPE = /^application\/([a-z.+-]*\+)?json\b/;

type Doc = Record<string, any>;

interface LoadedDocs {
  ajv: Ajv2020;
  openapi: { name: string; doc: Doc }[];
  /** Validators of the messages each channel sends (payload, and headers where documented). */
  frames: Map<SocketChannel, FrameValidator[]>;
  /** Validators by JSON reference (`voice#/paths/…/schema`). */
  compiled: Map<string, ValidateFunction>;
}

interface FrameValidator {
  name: string;
  validate: ValidateFunction;
  headers?: ValidateFunction;
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
  const frames = new Map<SocketChannel, FrameValidator[]>();
  for (const d of docs.filter((x) => x.kind === 'asyncapi')) {
    const sends = (d.doc.operations?.serverSends?.messages ?? []) as { $ref: string }[];
    const validators = sends.map((m): FrameValidator => {
      const name = m.$ref.split('/').pop()!;
      const at = `${d.name}#/components/messages/${name}`;
      return {
        name,
        validate: ajv.compile({ $ref: `${at}/payload` }),
        ...(d.doc.components.messages[name].headers
          ? { headers: ajv.compile({ $ref: `${at}/headers` }) }
          : {}),
      };
    });
    frames.set(d.name as SocketChannel, validators);
  }
  const loaded = { ajv, openapi: docs.filter((d) => d.kind === 'openapi'), frames, compiled: new Map() };
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

  /** Frames sent before the server was bound (a restarted node's pending webhook deliveries). */
  private early: Parameters<ContractChecker['frame']>[] = [];

  bind(runtime: Runtime): void {
    this.runtime = runtime;
    for (const args of this.early.splice(0)) this.frame(...args);
  }

  private docs(): LoadedDocs {
    this.loaded ??= load(this.runtime!);
    return this.loaded;
  }

  response(r: ObservedResponse): void {
    if (r.method === 'HEAD') return;
    const where = `${r.method} ${r.url} → ${r.status}`;
    if (!r.route) return this.noRoute(r, where);
    if (!isApiRoute(r.route)) return;
    const { openapi } = this.docs();
    const path = openApiPath(r.route);
    const method = r.method.toLowerCase();
    const owner = openapi.find((d) => d.doc.paths?.[path]?.[method]);
    if (!owner) {
      // Verbs a path does not support (405 with Allow) and static pages are not operations.
      if (r.status === 405 || !this.isServed(r.method, r.route)) return;
      return void this.violations.push(`${where}: ${r.method} ${path} is in no OpenAPI document`);
    }
    const responses = owner.doc.paths[path][method].responses as Record<string, Doc>;
    const status = String(r.status);
    const key = [status, `${status[0]}XX`, 'default'].find((k) => responses[k]);
    if (!key) return void this.violations.push(`${where}: status ${status} is not documented`);
    this.violations.push(
      ...this.mismatches(r, where, owner.name, ['paths', path, method, 'responses', key], responses[key]!),
    );
  }

  /**
   * A request under an API's prefix that matched no route: the not-found handler of the API
   * answers `components.responses.NotFound` of that API's document. Other statuses (401 before
   * the handler, 503 busy) must match that status's answer of some operation of the document.
   */
  private noRoute(r: ObservedResponse, where: string): void {
    const path = r.url.split('?')[0]!;
    const prefix = DOCUMENTED_PREFIXES.find((p) => path === p || path.startsWith(`${p}/`));
    if (!prefix) return;
    const owner = this.docs().openapi.find((d) =>
      Object.keys(d.doc.paths ?? {}).some((p) => p === prefix || p.startsWith(`${prefix}/`)),
    );
    // An API that is not mounted (the simulator with --no-sim) has no document to answer for it.
    if (!owner) return;
    if (r.status === 404) {
      const notFound = owner.doc.components?.responses?.NotFound as Doc | undefined;
      if (!notFound) return void this.violations.push(`${where}: ${owner.name} documents no NotFound`);
      const at = ['components', 'responses', 'NotFound'];
      return void this.violations.push(
        ...this.mismatches(r, `${where} (no route)`, owner.name, at, notFound),
      );
    }
    const status = String(r.status);
    const trials: string[][] = [];
    const seen = new Set<string>();
    for (const [p, item] of Object.entries(owner.doc.paths as Record<string, Record<string, Doc>>)) {
      for (const [m, op] of Object.entries(item)) {
        const responses = (op.responses ?? {}) as Record<string, Doc>;
        const key = [status, `${status[0]}XX`].find((k) => responses[k]);
        if (!key) continue;
        const fingerprint = JSON.stringify([responses[key]!.content, responses[key]!.headers]);
        if (seen.has(fingerprint)) continue;
        seen.add(fingerprint);
        const found = this.mismatches(
          r,
          where,
          owner.name,
          ['paths', p, m, 'responses', key],
          responses[key]!,
        );
        if (found.length === 0) return;
        trials.push(found);
      }
    }
    const example = trials[0]?.[0] ? `; e.g. ${trials[0][0]}` : '';
    this.violations.push(`${where} (no route): matches no ${status} answer of ${owner.name}${example}`);
  }

  private isServed(method: string, route: string): boolean {
    return this.runtime!.docs.servedRoutes().some((s) => s.method === method && s.url === route);
  }

  /** What is wrong with an answer against one documented response: headers, emptiness, type, body. */
  private mismatches(
    r: ObservedResponse,
    where: string,
    docName: string,
    at: string[],
    response: Doc,
  ): string[] {
    const { ajv } = this.docs();
    const found: string[] = [];
    for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, Doc>)) {
      const value = r.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required) found.push(`${where}: required header ${name} is missing`);
        continue;
      }
      const validate = this.compile(`${docName}#/${pointer(...at, 'headers', name, 'schema')}`);
      const text = String(value);
      // Header values are text: a numeric schema (Retry-After) is checked against the number.
      if (!validate(text) && !(/^-?\d+(\.\d+)?$/.test(text) && validate(Number(text)))) {
        found.push(`${where}: header ${name} "${text}": ${ajv.errorsText(validate.errors)}`);
      }
    }
    const content = response.content as Record<string, Doc> | undefined;
    const type = r.contentType?.split(';')[0]?.trim().toLowerCase();
    if (r.body.length === 0) {
      if (content && !response[EMPTY_BODY_ALLOWED]) {
        found.push(`${where}: empty body, documented as ${Object.keys(content).join(', ')}`);
      }
      return found;
    }
    if (!content) return [...found, `${where}: documented without a body, sent ${type}`];
    if (!type || !content[type]) {
      return [
        ...found,
        `${where}: content type ${type} is not documented (${Object.keys(content).join(', ')})`,
      ];
    }
    let body: unknown = r.body;
    if (JSON_TYPE.test(type)) {
      try {
        body = JSON.parse(r.body);
      } catch {
        return [...found, `${where}: ${type} body is not JSON: ${r.body.slice(0, 200)}`];
      }
    }
    const validate = this.compile(`${docName}#/${pointer(...at, 'content', type, 'schema')}`);
    if (!validate(body))
      found.push(`${where}: ${ajv.errorsText(validate.errors)}; body ${r.body.slice(0, 400)}`);
    return found;
  }

  /** The validator of a schema inside a loaded document, compiled once. */
  private compile(ref: string): ValidateFunction {
    const { ajv, compiled } = this.docs();
    let validate = compiled.get(ref);
    if (!validate) {
      validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
      compiled.set(ref, validate);
    }
    return validate;
  }

  /** A socket frame, or a webhook delivery with its headers, against the channel's messages. */
  frame(channel: SocketChannel, text: string, headers?: Record<string, string>): void {
    if (!this.runtime) return void this.early.push([channel, text, headers]);
    const candidates = this.docs().frames.get(channel);
    if (!candidates) return void this.violations.push(`${channel}: no AsyncAPI document`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return void this.violations.push(`${channel}: frame is not JSON: ${text.slice(0, 200)}`);
    }
    const match = candidates.find((c) => c.validate(value));
    if (!match) {
      return void this.violations.push(
        `${channel}: frame matches no message of the document: ${text.slice(0, 400)}`,
      );
    }
    if (!match.headers) return;
    if (!headers || !match.headers(headers)) {
      const why = headers ? this.docs().ajv.errorsText(match.headers.errors) : 'none sent';
      this.violations.push(`${channel}: headers of ${match.name} do not match: ${why}`);
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
