/** What the guard (holder-guard.ts, pg-holder-lock.ts) shares: who holds, and the refusal. */
import { DatabaseError } from './database.js';

/** Another server holds the database: one line naming it, exit code 2. */
export class DatabaseHeldError extends DatabaseError {}

export interface HolderIdentity {
  nodeId: string;
  host: string;
  pid: number;
}

export interface DatabaseHold {
  /** Lets go of the database (graceful stop). */
  release(): Promise<void>;
}

export interface GuardLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Names the standalone holder of a database, for a refusal. */
export function holderText(row: { node_id: string; pid: number; host: string }): string {
  return `standalone server ${row.node_id} (pid ${row.pid} on ${row.host})`;
}
