import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { type Db, openDatabase } from '../../../src/store/database.js';
import {
  DatabaseHeldError,
  holdAsStandalone,
  STALE_MS,
  thisHolder,
} from '../../../src/store/holder-guard.js';

const quiet = { warn() {}, error() {} };

async function sqlite(): Promise<{ db: Db; target: { kind: 'sqlite'; file: string } }> {
  const target = { kind: 'sqlite' as const, file: join(mkdtempSync(join(tmpdir(), 'sb-hold-')), 'h.db') };
  return { db: await openDatabase(target), target };
}

async function plant(db: Db, row: { node_id: string; host: string; pid: number; heartbeat_at: number }) {
  await db.kysely
    .insertInto('standalone_holder')
    .values({ slot: 'standalone', started_at: row.heartbeat_at, ...row })
    .execute();
}

/** A pid that surely names no process: one that just exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

describe('the standalone guard on SQLite', () => {
  it('a fresh row of another host is refused, naming it', async () => {
    const { db, target } = await sqlite();
    await plant(db, { node_id: 'far', host: 'elsewhere', pid: 42, heartbeat_at: Date.now() });
    await assert.rejects(
      holdAsStandalone(db, target, thisHolder('me'), quiet),
      (e: unknown) =>
        e instanceof DatabaseHeldError &&
        /in use by standalone server far \(pid 42 on elsewhere\)/.test(e.message),
    );
    await db.close();
  });

  it('a row whose heartbeat stopped over 6 s ago is taken over', async () => {
    const { db, target } = await sqlite();
    await plant(db, { node_id: 'far', host: 'elsewhere', pid: 42, heartbeat_at: Date.now() - STALE_MS - 1 });
    const hold = await holdAsStandalone(db, target, thisHolder('me'), quiet);
    const row = await db.kysely.selectFrom('standalone_holder').selectAll().executeTakeFirstOrThrow();
    assert.equal(row.node_id, 'me');
    await hold.release();
    assert.equal(await db.kysely.selectFrom('standalone_holder').selectAll().executeTakeFirst(), undefined);
    await db.close();
  });

  it('on this host, a fresh row of a process that is gone is taken over at once', async () => {
    const { db, target } = await sqlite();
    await plant(db, {
      node_id: 'crashed',
      host: thisHolder('x').host,
      pid: deadPid(),
      heartbeat_at: Date.now(),
    });
    const hold = await holdAsStandalone(db, target, thisHolder('me'), quiet);
    await hold.release();
    await db.close();
  });

  it('on this host, a fresh row of a live process is refused', async () => {
    const { db, target } = await sqlite();
    await plant(db, {
      node_id: 'parent',
      host: thisHolder('x').host,
      pid: process.ppid,
      heartbeat_at: Date.now(),
    });
    await assert.rejects(holdAsStandalone(db, target, thisHolder('me'), quiet), DatabaseHeldError);
    await db.close();
  });

  it('a row with this very pid that no server of this process holds is a previous life (a restarted container)', async () => {
    const { db, target } = await sqlite();
    await plant(db, {
      node_id: 'before',
      host: thisHolder('x').host,
      pid: process.pid,
      heartbeat_at: Date.now(),
    });
    const hold = await holdAsStandalone(db, target, thisHolder('me'), quiet);
    // …whereas one this process holds is refused.
    await assert.rejects(holdAsStandalone(db, target, thisHolder('me-too'), quiet), /standalone server me /);
    await hold.release();
    await db.close();
  });

  it('an in-memory database has no holder', async () => {
    const target = { kind: 'sqlite' as const, file: ':memory:' };
    const db = await openDatabase(target);
    const a = await holdAsStandalone(db, target, thisHolder('a'), quiet);
    const b = await holdAsStandalone(db, target, thisHolder('b'), quiet);
    await a.release();
    await b.release();
    await db.close();
  });
});
