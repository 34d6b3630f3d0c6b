import type { Principal } from '../../core/permissions.js';
import type { KeptWindow } from './kept-window.js';

/**
 * Answers of reads kept as the text they were sent as (issue 19). Some reads answer only from
 * the requester, the URL and state that changes rarely (the directory, phone registrations):
 * rendering their HAL bodies and serializing them without a schema cost several times the
 * cached-auth reference, on every request, for the same bytes. A route that declares so (route-core
 * `cached`) is answered from here while that state has not changed.
 *
 * - Keyed by the resolved principal object (never a string the client typed) and the request's
 *   path and query as received. Principals are frozen and replaced when what they hold changes
 *   (api/auth), so another user, tenant or role never shares an entry, and a changed permission
 *   is a new principal with no entries.
 * - Freshness is one number the route gives (e.g. the directory's change count plus the switch's
 *   registration count), read before the handler runs: when it differs from the one the kept
 *   answers were made under, every answer is dropped. On a cluster node the directory applies the
 *   other nodes' writes as its own changes, so it moves there too.
 * - Bounded: at most `maxChars` characters of bodies and URLs in all, `maxPerPrincipal` answers
 *   per principal and no body over `maxBodyChars`; the least recently used principal, then its least recently used
 *   answer, goes first.
 * - Only plain answers (a 200 without headers of its own) are kept; errors are never kept.
 * - An answer that holds only for a while (kept-window.ts) is answered only while the clock time
 *   the route gives is within it.
 */
export interface KeptAnswer {
  status: number;
  contentType: string;
  body: string;
  /** The clock times the body is true within, when it carries values that move with the clock. */
  window?: KeptWindow | undefined;
}

interface PrincipalAnswers {
  answers: Map<string, KeptAnswer>;
}

export interface ReadCacheLimits {
  maxChars: number;
  maxPerPrincipal: number;
  maxBodyChars: number;
}

export const READ_CACHE_LIMITS: ReadCacheLimits = {
  maxChars: 8 * 1024 * 1024,
  maxPerPrincipal: 256,
  maxBodyChars: 256 * 1024,
};

export class ReadCache {
  /** In least recently used order (a hit moves its principal to the end). */
  private byPrincipal = new Map<Principal, PrincipalAnswers>();
  private generation = -1;
  private chars = 0;

  constructor(private readonly limits: ReadCacheLimits = READ_CACHE_LIMITS) {}

  /**
   * The answer kept for this principal and URL under `generation`, if any; one kept with a window
   * only when `now` (the route's clock) is within it.
   */
  get(principal: Principal, url: string, generation: number, now?: number): KeptAnswer | undefined {
    if (generation !== this.generation) {
      this.reset(generation);
      return undefined;
    }
    const mine = this.byPrincipal.get(principal);
    const kept = mine?.answers.get(url);
    if (!kept) return undefined;
    const w = kept.window;
    // Outside its window it is not dropped here: the answer made instead replaces it.
    if (w && (now === undefined || now < w.from || now >= w.until)) return undefined;
    this.byPrincipal.delete(principal);
    this.byPrincipal.set(principal, mine!);
    mine!.answers.delete(url);
    mine!.answers.set(url, kept);
    return kept;
  }

  /** Keeps an answer made under `generation` (read before it was made); a later one drops it. */
  set(principal: Principal, url: string, generation: number, answer: KeptAnswer): void {
    if (generation !== this.generation) return;
    const size = answer.body.length + url.length;
    if (size > this.limits.maxBodyChars) return;
    let mine = this.byPrincipal.get(principal);
    if (mine) this.byPrincipal.delete(principal);
    else mine = { answers: new Map() };
    this.byPrincipal.set(principal, mine);
    const before = mine.answers.get(url);
    if (before) this.chars -= before.body.length + url.length;
    mine.answers.set(url, answer);
    this.chars += size;
    if (mine.answers.size > this.limits.maxPerPrincipal) this.dropOldest(principal, mine);
    for (const [p, other] of this.byPrincipal) {
      if (this.chars <= this.limits.maxChars) break;
      while (other.answers.size > 0 && this.chars > this.limits.maxChars) this.dropOldest(p, other);
    }
  }

  /** How many answers are kept (tests). */
  get size(): number {
    let n = 0;
    for (const mine of this.byPrincipal.values()) n += mine.answers.size;
    return n;
  }

  private dropOldest(principal: Principal, mine: PrincipalAnswers): void {
    const [url, answer] = mine.answers.entries().next().value!;
    mine.answers.delete(url);
    this.chars -= answer.body.length + url.length;
    if (mine.answers.size === 0) this.byPrincipal.delete(principal);
  }

  private reset(generation: number): void {
    this.byPrincipal = new Map();
    this.chars = 0;
    this.generation = generation;
  }
}
