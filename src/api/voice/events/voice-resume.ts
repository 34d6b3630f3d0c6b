import { Type } from '@sinclair/typebox';
import type { LoggedEvent } from '../../../core/event-stream.js';
import type { Continuity, ResumeFailure } from '../../continuity/index.js';
import { framerOf, type SetFramer } from './frames.js';
import type { SubscriptionIndex } from './subscriptions.js';
import { identityOf, type VoiceSessionState, type VoiceSocket, type VoiceSockets } from './voice-sockets.js';

/** The opt-in of /api/ws (docs/events.md); without `resume` the socket is exactly as before. */
export const ResumeQuerySchema = Type.Object({
  resume: Type.Optional(
    Type.String({
      description:
        'Empty or `true`: open a resumable socket. A `webSocketId` of a resumable socket of yours: ' +
        'resume it (with `after`).',
    }),
  ),
  after: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: 'With `resume=<webSocketId>`: the `sequence` of the last event received.',
    }),
  ),
});

export type ResumeQuery =
  { kind: 'none' } | { kind: 'new' } | { kind: 'resume'; id: string; after: number } | { invalid: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function parseResumeQuery(query: unknown): ResumeQuery {
  const { resume, after } = (query ?? {}) as Record<string, unknown>;
  if (resume === undefined)
    return after === undefined ? { kind: 'none' } : { invalid: '`after` needs `resume`.' };
  if (typeof resume !== 'string') return { invalid: '`resume` may be given once.' };
  if (resume === '' || resume === 'true')
    return after === undefined ? { kind: 'new' } : { invalid: '`after` needs `resume=<webSocketId>`.' };
  if (!UUID.test(resume)) return { invalid: '`resume` is empty, `true` or a webSocketId.' };
  if (typeof after !== 'string' || !/^[0-9]{1,15}$/.test(after))
    return {
      invalid: '`after` (the sequence of the last event received) is required with resume=<webSocketId>.',
    };
  return { kind: 'resume', id: resume.toLowerCase(), after: Number(after) };
}

/** What the first frame of a resumable socket adds to `webSocketId`. */
type ResumeStatus =
  | { status: 'started' | 'resumed'; sequence: number }
  | { status: 'failed'; reason: ResumeFailure; sequence: number };

/**
 * Opens a resumable socket: resumes the session `query` names (its sets back, the missed events
 * replayed, then live) or begins a new one. Synchronous from claim to the last replayed frame, so
 * no event can fall between the replay and the live stream. Answers the socket's id.
 */
export function resumeSocket(
  sockets: VoiceSockets,
  { journal, sessions }: Continuity,
  base: Omit<VoiceSocket, 'sets' | 'resumable'>,
  query: { kind: 'new' } | { kind: 'resume'; id: string; after: number },
): string {
  const tenantId = base.owner.tenantId;
  const identity = identityOf(base.owner);
  const first = (id: string, resume: ResumeStatus | { status: 'unavailable' }) =>
    base.ws.send(JSON.stringify({ webSocketId: id, resume }));
  if (tenantId === undefined) {
    // A telco user of no tenant has no tenant stream to follow (and cannot create sets).
    sockets.add({ ...base, sets: new Map() });
    first(base.id, { status: 'unavailable' });
    return base.id;
  }
  let failure: ResumeFailure | undefined;
  if (query.kind === 'resume') {
    const rec = sessions.claim('voice', query.id, identity);
    const missed = rec && journal.since(tenantId, query.after);
    if (rec && missed) {
      const socket = sockets.restore({ ...base, id: rec.id }, rec.state as VoiceSessionState);
      sockets.add(socket);
      for (const set of socket.sets.values()) sockets.reindex(set);
      first(socket.id, { status: 'resumed', sequence: query.after });
      replay(missed, socket, sockets.index);
      return socket.id;
    }
    if (rec) sessions.end(rec.id);
    failure = rec ? 'retention' : 'expired';
  }
  sockets.add({ ...base, sets: new Map(), resumable: true });
  sessions.begin({ id: base.id, api: 'voice', identity, tenantId, state: { sets: [] } });
  const sequence = journal.last(tenantId);
  first(base.id, failure ? { status: 'failed', reason: failure, sequence } : { status: 'started', sequence });
  return base.id;
}

/** Sends each missed voice event to the socket's sets that hear it, as the live fan-out would. */
function replay(missed: readonly LoggedEvent[], socket: VoiceSocket, index: SubscriptionIndex): void {
  for (const e of missed) {
    if (e.channel !== 'voice') continue;
    let frame: SetFramer | undefined;
    for (const set of socket.sets.values()) {
      if (!index.hears(set, e.tags)) continue;
      frame ??= framerOf(e.body);
      set.deliver(frame(set.id, e.seq));
    }
  }
}
