// The SQLite statement cache (src/store/statement-cache.ts): a statement is prepared once per SQL
// text, never shared while it is still being iterated, and still sees a changed schema.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import SQLite from 'better-sqlite3';
import { keepingStatements } from '../../../src/store/statement-cache.js';

test('one prepared statement per SQL text, with the right rows every time', () => {
  const raw = new SQLite(':memory:');
  let prepared = 0;
  const counting = {
    prepare: (sql: string) => {
      prepared++;
      return raw.prepare(sql);
    },
    close: () => raw.close(),
  };
  const db = keepingStatements(counting);
  db.prepare('create table t (n integer)').run([]);
  for (let i = 1; i <= 3; i++) db.prepare('insert into t (n) values (?)').run([i]);
  assert.deepEqual(db.prepare('select n from t where n >= ? order by n').all([2]), [{ n: 2 }, { n: 3 }]);
  assert.deepEqual(db.prepare('select n from t where n >= ? order by n').all([3]), [{ n: 3 }]);
  assert.equal(prepared, 3);
  db.close();
});

test('a statement being iterated is not handed out again', () => {
  const raw = new SQLite(':memory:');
  const db = keepingStatements(raw);
  db.prepare('create table t (n integer)').run([]);
  for (let i = 1; i <= 3; i++) db.prepare('insert into t (n) values (?)').run([i]);
  const sql = 'select n from t order by n';
  const outer: unknown[] = [];
  for (const row of db.prepare(sql).iterate([])) {
    outer.push(row);
    assert.equal(db.prepare(sql).all([]).length, 3);
  }
  assert.equal(outer.length, 3);
  db.close();
});

test('a kept statement sees a column added after it was prepared', () => {
  const raw = new SQLite(':memory:');
  const db = keepingStatements(raw);
  db.prepare('create table t (n integer)').run([]);
  db.prepare('insert into t (n) values (?)').run([1]);
  assert.deepEqual(db.prepare('select * from t').all([]), [{ n: 1 }]);
  db.prepare('alter table t add column m integer default 7').run([]);
  assert.deepEqual(db.prepare('select * from t').all([]), [{ n: 1, m: 7 }]);
  db.close();
});
