import { VoiceApiError } from '../errors.js';
import { findLink, type Hal, linkHref } from '../hal/hal.js';
import type { TemplateVars } from '../http/uri-template.js';
import type { VoiceHttp } from './voice-http.js';
import type { ApiRoot } from './voice-types.js';

/** The entry point; every other address comes from a link (the spec: URLs may change). */
const ENTRY = '/api';

/**
 * Finds addresses the way the spec asks: start at `/api`, follow `api:v1`, and take templated
 * addresses from the v1 root or the URI dictionary (`v1:uriDictionary`). The three documents are
 * read once per client; they depend only on who the user is. `refresh()` forgets them.
 */
export class VoiceNavigator {
  private rootP: Promise<Hal<ApiRoot>> | undefined;
  private v1P: Promise<Hal<object>> | undefined;
  private dictionaryP: Promise<Hal<object> | null> | undefined;

  constructor(private readonly http: VoiceHttp) {}

  root(): Promise<Hal<ApiRoot>> {
    return (this.rootP ??= this.http.get<ApiRoot>(ENTRY).catch((e) => this.forget(e)));
  }

  v1(): Promise<Hal<object>> {
    return (this.v1P ??= this.root()
      .then((root) => this.http.get<object>(linkHref(root, 'api:v1')))
      .catch((e) => this.forget(e)));
  }

  /** The URI dictionary, or null when this user may not read it (users and locations). */
  dictionary(): Promise<Hal<object> | null> {
    return (this.dictionaryP ??= this.v1()
      .then(async (v1) => {
        if (!findLink(v1, 'v1:uriDictionary')) return null;
        try {
          return await this.http.get<object>(linkHref(v1, 'v1:uriDictionary'));
        } catch (e) {
          if (e instanceof VoiceApiError && e.status === 403) return null;
          throw e;
        }
      })
      .catch((e) => this.forget(e)));
  }

  /** The address of a v1 root relation, template expanded. */
  async v1Href(rel: string, vars: TemplateVars = {}): Promise<string> {
    return linkHref(await this.v1(), rel, vars);
  }

  /** The address of a dictionary template, or undefined when the dictionary does not offer it. */
  async dictionaryHref(rel: string, vars: TemplateVars): Promise<string | undefined> {
    const dictionary = await this.dictionary();
    return dictionary && findLink(dictionary, rel) ? linkHref(dictionary, rel, vars) : undefined;
  }

  /** The WebSocket address the root offers (`api:createWebsocket`), read fresh each time. */
  async websocketHref(): Promise<string> {
    this.rootP = undefined;
    return linkHref(await this.root(), 'api:createWebsocket');
  }

  refresh(): void {
    this.rootP = this.v1P = this.dictionaryP = undefined;
  }

  private forget(e: unknown): never {
    this.refresh();
    throw e;
  }
}
