import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { demoWorld } from '../../../src/directory/demo-world.js';
import { Directory, type DirectoryChange, type EntityKey } from '../../../src/directory/directory.js';
import type { GenericEntity } from '../../../src/directory/model.js';
import { MemoryStore } from '../switch/harness.js';

/**
 * Two directories on one store, as two cluster nodes on one database: one writes, the other
 * applies the writes it is told of (Directory.refresh and reload), writing nothing.
 */
async function twoNodes() {
  const store = new MemoryStore();
  await store.replaceAll(demoWorld());
  const writer = await Directory.load(store);
  const reader = await Directory.load(store);
  const told: (readonly EntityKey[] | 'all')[] = [];
  writer.replicateWith(async (w) => void told.push(w));
  const heard: DirectoryChange[] = [];
  reader.onChange((c) => heard.push(c));
  let writes = 0;
  for (const m of ['upsert', 'remove', 'replaceAll'] as const) {
    const f = store[m].bind(store) as (...a: unknown[]) => Promise<void>;
    (store as unknown as Record<string, unknown>)[m] = (...a: unknown[]) => {
      writes++;
      return f(...a);
    };
  }
  return { store, writer, reader, told, heard, writes: () => writes };
}

describe('a directory applies another node’s writes', () => {
  it('a changed record, told by key, is read again and heard as a remote change', async () => {
    const { writer, reader, told, heard, writes } = await twoNodes();
    const bob = writer.extension(1001, '101')!;
    await writer.put('extension', { ...bob, firstName: 'Robert' });
    assert.deepEqual(told, [[{ kind: 'extension', id: bob.id }]]);
    const before = writes();
    await reader.refresh(told[0] as EntityKey[]);
    assert.equal(writes(), before, 'the reader writes nothing');
    assert.equal(reader.extension(1001, '101')?.firstName, 'Robert');
    assert.equal(heard.length, 1);
    const [c] = heard;
    assert.equal(c.op, 'put');
    assert.equal(c.remote, true);
    assert.equal((c as { before?: GenericEntity }).before?.firstName, bob.firstName);
    // Told again, nothing has changed: nothing is heard.
    await reader.refresh(told[0] as EntityKey[]);
    assert.equal(heard.length, 1);
  });

  it('a removed record goes, its id retired as on the writer', async () => {
    const { writer, reader, told, heard } = await twoNodes();
    assert.equal(await writer.remove('extension', '1001:102'), true);
    await reader.refresh(told.at(-1) as EntityKey[]);
    assert.equal(reader.extension(1001, '102'), undefined);
    assert.equal(reader.isRetired('extension', '1001:102'), true);
    assert.equal(
      reader.extensions(1001).some((e) => e.ext === '102'),
      false,
      'gone from the tenant’s list',
    );
    assert.deepEqual(
      heard.map((c) => [c.op, c.remote]),
      [['remove', true]],
    );
  });

  it('a new record, and a whole new world', async () => {
    const { writer, reader, told, heard } = await twoNodes();
    const tenant = { ...writer.tenant(1002)!, id: '1009', tenantId: 1009, name: 'New' };
    await writer.put('tenant', tenant);
    await reader.refresh(told.at(-1) as EntityKey[]);
    assert.equal(reader.tenant(1009)?.name, 'New');
    await writer.replaceAll(demoWorld());
    assert.equal(told.at(-1), 'all');
    await reader.reload();
    assert.equal(reader.tenant(1009), undefined);
    assert.deepEqual(heard.at(-1), { op: 'reset', remote: true });
  });

  it('create refuses an id another node took since this one looked, and changes nothing', async () => {
    const { writer, reader } = await twoNodes();
    const zone = (id: string, name: string): GenericEntity => ({ id, name });
    assert.equal(await writer.create('zone', zone('77', 'first')), true);
    // The reader has not heard of it: its cache says the id is free, the store says it is not.
    assert.equal(reader.get('zone', '77'), undefined);
    const heard: DirectoryChange[] = [];
    reader.onChange((c) => heard.push(c));
    assert.equal(await reader.create('zone', zone('77', 'second')), false);
    assert.equal(reader.get('zone', '77'), undefined);
    assert.deepEqual(heard, []);
    await reader.refresh([{ kind: 'zone', id: '77' }]);
    assert.equal(reader.get('zone', '77')?.name, 'first');
  });
});
