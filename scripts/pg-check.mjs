#!/usr/bin/env node
// Exits 0 when the PostgreSQL server at the given URL answers `select 1`.
import pg from 'pg';

const url = process.argv[2];
const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
try {
  await client.connect();
  await client.query('select 1');
  await client.end();
} catch (e) {
  console.error(`pg-check: ${e.message}`);
  process.exit(1);
}
