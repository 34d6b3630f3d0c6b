import { randomUUID } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import type { CcEvent } from '../../contact-center/types.js';
import type { LoggedEvent, StoredSession } from '../../core/event-stream.js';
import type { Principal } from '../../core/permissions.js';
import type { Directory } from '../../directory/directory.js';
import {
  type Continuity,
  identityOf,
  type JournalRenderer,
  type ResumeFailure,
} from '../continuity/index.js';
import { eventFrame } from './event-frames.js';

/** The `resume` field of `connect` (docs/events.md): `true` opens a resumable session. */
export const ConnectResumeSchema = Type.Union(
  [
    Type.Literal(true, { description: 'Open a resumable session: events then carry `sequence`.' }),
    Type.Object(
      {
        session: Type.String({ format: 'uuid', description: 'The `session` of the connect answer.' }),
        after: Type.Record(Type.String({ format: 'uuid' }), Type.Integer({ minimum: 0 }), {
          description:
            'Per tenant (`tenant_id`): the `sequence` of the last event received (or the connect ' +
            'answer’s `sequences` for a tenant no event of which arrived).',
          maxProperties: 10_000,
        }),
      },
      { additionalProperties: false, description: 'Resume that session.' },
    ),
  ],
  { description: 'Only for clients that resume (docs/events.md).' },
);
export type ConnectResume = Static<typeof ConnectResumeSchema>;

/** What a resumable session stores: its selection, and where each of its tenants stood at its start. */
interface CcSessionState {
  only: string[] | null;
  start: Record<string, number>;
}

/** What the connect answer adds for a client that asked for resume. */
export interface ResumeAnswer {
  session: string;
  resumed: boolean;
  sequences: Record<string, number>;
  reason?: ResumeFailure;
}

export interface CcResumeOutcome {
  id: string;
  only: Set<string> | null;
  answer: ResumeAnswer;
  start: Record<string, number>;
  /** The contact-center events missed, per tenant in order. */
  missed: LoggedEvent[];
}

/** The journal's form of a contact-center event: its frame, tagged with category and name. */
export function ccJournalRenderer(directory: Directory): JournalRenderer {
  return (e) => {
    if (e.type !== 'cc') return null;
    const frame = eventFrame(directory, e);
    return frame && { channel: 'cc', tags: [e.category, e.name], body: JSON.stringify(frame) };
  };
}

/** A journaled frame as the domain fields `receives` needs. */
export const ccEventOf = (e: LoggedEvent): Pick<CcEvent, 'tenantId' | 'category' | 'name'> => ({
  tenantId: e.tenantId,
  category: e.tags[0] as CcEvent['category'],
  name: e.tags[1] as CcEvent['name'],
});

/** A frame with its sequence appended (resumable sessions only). */
export const withSequence = (frameJson: string, seq: number) =>
  `${frameJson.slice(0, -1)},"sequence":${seq}}`;

/** The tenants a principal's session follows: its own, or every tenant for a telco user. */
function tenantsOf(directory: Directory, principal: Principal): number[] {
  return principal.authority === 'telco' || principal.tenantId === undefined
    ? directory.tenants().map((t) => t.tenantId)
    : [principal.tenantId];
}

/**
 * Where a resume goes on from, per tenant (by its contact-center uuid): the client's `after`,
 * else where the session's tenant stood when it began.
 */
export function ccCursors(
  directory: Directory,
  principal: Principal,
  after: Record<string, number>,
  stored: Pick<StoredSession, 'state'> | undefined,
): { tenantId: number; uuid: string; after: number }[] {
  const start = (stored?.state as CcSessionState | undefined)?.start ?? {};
  return tenantsOf(directory, principal).flatMap((tenantId) => {
    const uuid = directory.tenant(tenantId)?.cc.uuid;
    return uuid ? [{ tenantId, uuid, after: after[uuid] ?? start[tenantId] ?? 0 }] : [];
  });
}

/**
 * Begins or resumes a session for a `connect` that carries `resume`. Synchronous from the claim to
 * the list of missed events, so the caller can send them and go live with no event in between.
 */
export function openCcSession(
  { journal, sessions }: Continuity,
  directory: Directory,
  principal: Principal,
  resume: ConnectResume,
): CcResumeOutcome {
  const identity = identityOf(principal);
  const scope = principal.authority === 'telco' ? null : (principal.tenantId ?? null);
  const tenants = tenantsOf(directory, principal);
  const uuidOf = (t: number) => directory.tenant(t)?.cc.uuid;
  let failure: ResumeFailure | undefined;
  if (resume !== true) {
    const rec = sessions.claim('cc', resume.session.toLowerCase(), identity);
    if (rec) {
      const state = rec.state as CcSessionState;
      const missed: LoggedEvent[] = [];
      const sequences: Record<string, number> = {};
      let complete = true;
      for (const { tenantId: t, uuid, after } of ccCursors(directory, principal, resume.after, rec)) {
        const since = journal.since(t, after);
        if (!since) {
          complete = false;
          break;
        }
        sequences[uuid] = after;
        for (const e of since) if (e.channel === 'cc') missed.push(e);
      }
      if (complete) {
        return {
          id: rec.id,
          only: state.only ? new Set(state.only) : null,
          answer: { session: rec.id, resumed: true, sequences },
          start: state.start,
          missed,
        };
      }
      sessions.end(rec.id);
      failure = 'retention';
    } else failure = 'expired';
  }
  const id = randomUUID();
  const start: Record<string, number> = {};
  const sequences: Record<string, number> = {};
  for (const t of tenants) {
    start[t] = journal.last(t);
    const uuid = uuidOf(t);
    if (uuid) sequences[uuid] = start[t];
  }
  sessions.begin({ id, api: 'cc', identity, tenantId: scope, state: { only: null, start } });
  return {
    id,
    only: null,
    answer: { session: id, resumed: false, sequences, ...(failure ? { reason: failure } : {}) },
    start,
    missed: [],
  };
}

/** A resumable session's state to store (its selection is restored on resume). */
export const sessionState = (only: Set<string> | null, start: Record<string, number>): CcSessionState => ({
  only: only ? [...only] : null,
  start,
});
