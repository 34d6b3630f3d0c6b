import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { demoWorld } from '../../../src/directory/demo-world.js';
import { Directory } from '../../../src/directory/directory.js';
import { CallRecordStore, RECENT_WINDOW } from '../../../src/store/call-records.js';
import { openDatabase } from '../../../src/store/database.js';
import { SqlEntityStore } from '../../../src/store/entity-store.js';
import { dropSchemas, testTargets } from '../../helpers/databases.js';

after(dropSchemas);

for (const { name, target } of testTargets()) {
  describe(`storage on ${name}`, () => {
    test('migrations run from empty and are idempotent', async () => {
      const t = target();
      const db = await openDatabase(t);
      const tables = ['directory_entities', 'call_records', 'cc_tokens', 'text_counters', 'kv'];
      for (const table of tables) {
        // Every table exists and is empty.
        const rows = await db.kysely
          .selectFrom(table as 'kv')
          .selectAll()
          .execute();
        assert.deepEqual(rows, []);
      }
      await db.close();
      const again = await openDatabase(t); // second run applies nothing and does not fail
      assert.equal(await again.ping(), true);
      await again.close();
    });

    test('the directory round-trips every entity of the demo world', async () => {
      const t = target();
      const db = await openDatabase(t);
      const dir = await Directory.load(new SqlEntityStore(db));
      assert.equal(dir.isEmpty(), true);
      const world = demoWorld();
      await dir.replaceAll(world);
      const kinds = new Set(world.map((e) => e.kind));
      assert.ok(kinds.size >= 11, `expected every entity kind, got ${[...kinds]}`);
      await db.close();

      const db2 = await openDatabase(t);
      const reloaded = await Directory.load(new SqlEntityStore(db2));
      for (const e of world) assert.deepEqual(reloaded.get(e.kind, e.id), e.data, `${e.kind} ${e.id}`);
      assert.equal(reloaded.tenantByDid('5555550100')?.tenantId, 1001);
      assert.equal(reloaded.tenantByDid('+15555550100')?.tenantId, 1001);
      assert.equal(reloaded.tenantByUrl('ACME.example.test')?.tenantId, 1001);
      assert.equal(reloaded.extension(1001, '104')?.name, 'Erin Evans');
      assert.equal(reloaded.devicesOf(1001, '104')[0]?.model, 'bst');
      assert.deepEqual(reloaded.parkLocations(1001), [1, 2, 3, 4, 5]);
      assert.equal(reloaded.didByNumber('+15555550150')?.targetExt, '500');
      await db2.close();
    });

    test('put, update and remove persist; listeners see each change', async () => {
      const t = target();
      const db = await openDatabase(t);
      const dir = await Directory.load(new SqlEntityStore(db));
      await dir.replaceAll(demoWorld());
      const seen: string[] = [];
      dir.onChange((c) => seen.push(c.op === 'reset' ? 'reset' : `${c.op}:${c.kind}`));
      const ext = structuredClone(dir.extension(1001, '105')!);
      ext.dnd = true;
      ext.firstName = 'Francis';
      await dir.put('extension', ext);
      await dir.put('zone', { id: 'z1', name: 'East', region: 'us-east' });
      assert.equal(await dir.remove('did', 'did-1001-0150'), true);
      assert.equal(await dir.remove('did', 'no-such'), false);
      assert.deepEqual(seen, ['put:extension', 'put:zone', 'remove:did']);
      await db.close();

      const db2 = await openDatabase(t);
      const d2 = await Directory.load(new SqlEntityStore(db2));
      assert.equal(d2.extension(1001, '105')?.firstName, 'Francis');
      assert.equal(d2.extension(1001, '105')?.dnd, true);
      assert.deepEqual(d2.get('zone', 'z1'), { id: 'z1', name: 'East', region: 'us-east' });
      assert.equal(d2.didByNumber('+15555550150'), undefined);
      await db2.close();
    });

    test('the entity store loads just the records asked for (another node refreshing)', async () => {
      const db = await openDatabase(target());
      const store = new SqlEntityStore(db);
      await store.replaceAll(demoWorld());
      const rows = await store.load([
        { kind: 'extension', id: '1001:101' },
        { kind: 'tenant', id: '1002' },
        { kind: 'extension', id: '1001:999' },
      ]);
      assert.deepEqual(rows.map((r) => `${r.kind}/${r.id}/${r.tenantId}`).sort(), [
        'extension/1001:101/1001',
        'tenant/1002/1002',
      ]);
      assert.equal((rows.find((r) => r.kind === 'extension')?.data as { ext?: string }).ext, '101');
      assert.deepEqual(await store.load([]), []);
      await db.close();
    });

    test('call records: write, read back, search newest first', async () => {
      const t = target();
      const db = await openDatabase(t);
      const store = new CallRecordStore(db);
      const base = Date.UTC(2026, 0, 5, 9, 0, 0);
      for (let i = 0; i < 3; i++) {
        await store.write({
          smdrCallId: String(1000 + i),
          tenantId: 1001,
          startedAt: base + i * 60_000,
          answeredAt: i === 1 ? null : base + i * 60_000 + 5000,
          endedAt: base + i * 60_000 + 30_000,
          from: i === 2 ? '+15550001111' : '101',
          to: '102',
          outcome: i === 1 ? 'Unanswered' : 'Answered',
          data: { i },
        });
      }
      await store.write({
        smdrCallId: '2000',
        tenantId: 1002,
        startedAt: base,
        answeredAt: null,
        endedAt: base + 1,
        from: '201',
        to: '202',
        outcome: 'Unanswered',
        data: {},
      });
      const r = await store.get(1001, '1001');
      assert.equal(r?.answeredAt, null);
      assert.equal(r?.outcome, 'Unanswered');
      assert.equal(typeof r?.startedAt, 'number');
      assert.equal(await store.get(1001, '2000'), undefined, 'another tenant is invisible');
      const found = await store.find({ tenantId: 1001, called: '102' });
      assert.deepEqual(
        found.map((x) => x.smdrCallId),
        ['1002', '1001', '1000'],
      );
      const narrowed = await store.find({ tenantId: 1001, calling: '101', fromMs: base + 30_000 });
      assert.deepEqual(
        narrowed.map((x) => x.smdrCallId),
        ['1001'],
      );
      const outside = await store.find({ tenantId: 1001, calling: '+1 (555) 000-1111' });
      assert.deepEqual(
        outside.map((x) => x.smdrCallId),
        ['1002'],
        'numbers are compared as digits',
      );
      await db.close();
    });

    test('call records: the search matches the numbers the contact center shows, not from and to', async () => {
      const db = await openDatabase(target());
      const store = new CallRecordStore(db);
      const base = Date.UTC(2026, 0, 5, 9, 0, 0);
      const record = (id: string, at: number) => ({
        smdrCallId: id,
        tenantId: 1001,
        startedAt: at,
        answeredAt: at + 1000,
        endedAt: at + 60_000,
        from: '102',
        to: '+15550005555',
        outcome: 'Answered',
        data: { id },
      });
      // An outbound-queue dial: the agent dials, the contact center shows the queue's caller id.
      await store.write({ ...record('1', base), calling: '+15555550150', called: '+15550005555' });
      assert.deepEqual(
        (await store.find({ tenantId: 1001, calling: '+15555550150' })).map((r) => r.smdrCallId),
        ['1'],
      );
      assert.deepEqual(await store.find({ tenantId: 1001, calling: '102' }), []);
      await db.close();
    });

    test('call records: a rewritten record reads back with its new data; read data is frozen', async () => {
      const db = await openDatabase(target());
      const store = new CallRecordStore(db);
      const at = Date.UTC(2026, 0, 5, 9, 0, 0);
      const r = {
        smdrCallId: '1',
        tenantId: 1001,
        startedAt: at,
        answeredAt: null,
        endedAt: at + 1000,
        from: '101',
        to: '102',
        outcome: 'Unanswered',
        data: { step: 1, segments: [{ kind: 'outbound' }] },
      };
      await store.write(r);
      const first = await store.get(1001, '1');
      assert.deepEqual(first?.data, r.data);
      assert.ok(Object.isFrozen(first?.data) && Object.isFrozen((first?.data.segments as object[])[0]));
      // Another store (another node) rewrites it: this store reads the new text, not what it parsed.
      await new CallRecordStore(db).write({ ...r, outcome: 'Answered', data: { step: 2 } });
      assert.deepEqual((await store.get(1001, '1'))?.data, { step: 2 });
      assert.deepEqual(
        (await store.find({ tenantId: 1001 })).map((x) => x.data),
        [{ step: 2 }],
      );
      await db.close();
    });

    test('call records: many in one transaction, and a window of at most RECENT_WINDOW, newest first', async () => {
      const db = await openDatabase(target());
      const store = new CallRecordStore(db);
      const base = Date.UTC(2026, 0, 5, 9, 0, 0);
      const n = RECENT_WINDOW + 250;
      const written = await store.writeMany(
        (function* () {
          for (let i = 0; i < n; i++) {
            yield {
              smdrCallId: String(10_000 + i),
              tenantId: i % 5 === 0 ? 1002 : 1001,
              // Pairs share a start: the id orders them.
              startedAt: base + Math.floor(i / 2) * 1000,
              answeredAt: null,
              endedAt: base + Math.floor(i / 2) * 1000 + 500,
              from: String(100 + (i % 7)),
              to: '+15550001111',
              outcome: 'Unanswered',
              data: { i },
            };
          }
        })(),
      );
      assert.equal(written, n);
      const window = await store.find({ tenantId: 1001 });
      assert.equal(window.length, RECENT_WINDOW);
      const all1001 = [...Array(n).keys()].filter((i) => i % 5 !== 0).map((i) => String(10_000 + i));
      assert.deepEqual(
        window.map((r) => r.smdrCallId),
        all1001.reverse().slice(0, RECENT_WINDOW),
        'newest start first, then the larger id',
      );
      assert.equal((await store.find({ tenantId: 1001, limit: 10_000 })).length, RECENT_WINDOW);
      const newest = await store.find({ tenantId: 1001, calling: '103', limit: 1 });
      const expected = [...Array(n).keys()].filter((i) => i % 5 !== 0 && i % 7 === 3).at(-1)!;
      assert.deepEqual(
        newest.map((r) => r.data),
        [{ i: expected }],
      );
      await db.close();
    });
  });
}
