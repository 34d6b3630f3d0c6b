import { type ApiDocumentInfo, type OperationDoc, renderOpenApi } from './openapi.js';

export type DocumentKind = 'openapi' | 'asyncapi';

/**
 * Every API document Switchboard serves under /openapi/: the APIs add their operations while
 * they register their routes, and the event sockets add their AsyncAPI documents.
 */
export class ApiDocs {
  private readonly openapi = new Map<string, { info: ApiDocumentInfo; ops: OperationDoc[] }>();
  private readonly asyncapi = new Map<string, () => Record<string, unknown>>();
  private readonly rendered = new Map<string, Record<string, unknown>>();
  private readonly served: { method: string; url: string }[] = [];

  /** Records a route the server answers; the documents must describe every one. */
  noteRoute(method: string, url: string): void {
    this.served.push({ method, url });
  }

  /** The API routes registered (routes marked undocumented, such as 405 answers, excluded). */
  servedRoutes(): readonly { method: string; url: string }[] {
    return this.served;
  }

  defineOpenApi(info: ApiDocumentInfo): void {
    if (!this.openapi.has(info.name)) this.openapi.set(info.name, { info, ops: [] });
  }

  addOperation(name: string, op: OperationDoc): void {
    const doc = this.openapi.get(name);
    if (!doc) throw new Error(`No OpenAPI document ${name}`);
    doc.ops.push(op);
    this.rendered.delete(name);
  }

  addAsyncApi(name: string, build: () => Record<string, unknown>): void {
    this.asyncapi.set(name, build);
  }

  list(): { name: string; kind: DocumentKind; title: string }[] {
    return [
      ...[...this.openapi.values()].map((d) => ({
        name: d.info.name,
        kind: 'openapi' as const,
        title: d.info.title,
      })),
      ...[...this.asyncapi.keys()].map((name) => ({
        name,
        kind: 'asyncapi' as const,
        title: String((this.document(name)?.info as { title?: string } | undefined)?.title ?? name),
      })),
    ];
  }

  /** The rendered document, built once. */
  document(name: string): Record<string, unknown> | undefined {
    const cached = this.rendered.get(name);
    if (cached) return cached;
    const open = this.openapi.get(name);
    const doc = open ? renderOpenApi(open.info, open.ops) : this.asyncapi.get(name)?.();
    if (doc) this.rendered.set(name, doc);
    return doc;
  }
}
