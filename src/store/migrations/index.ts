import type { Kysely } from 'kysely';
import type { Migration, MigrationProvider } from 'kysely/migration';
import { callRecordWindows } from './0004-call-record-windows.js';

/** Versioned migrations, in order. Each runs once; both dialects use the same definitions. */
const migrations: Record<string, Migration> = {
  '0001_initial': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('directory_entities')
        .addColumn('kind', 'varchar(64)', (c) => c.notNull())
        .addColumn('id', 'varchar(200)', (c) => c.notNull())
        .addColumn('tenant_id', 'integer')
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('directory_entities_pk', ['kind', 'id'])
        .execute();
      await db.schema
        .createIndex('directory_entities_tenant')
        .on('directory_entities')
        .columns(['tenant_id', 'kind'])
        .execute();

      await db.schema
        .createTable('call_records')
        .addColumn('smdr_call_id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('tenant_id', 'integer', (c) => c.notNull())
        .addColumn('started_at', 'bigint', (c) => c.notNull())
        .addColumn('answered_at', 'bigint')
        .addColumn('ended_at', 'bigint', (c) => c.notNull())
        .addColumn('from_number', 'varchar(64)', (c) => c.notNull())
        .addColumn('to_number', 'varchar(64)', (c) => c.notNull())
        .addColumn('outcome', 'varchar(32)', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('call_records_tenant_time')
        .on('call_records')
        .columns(['tenant_id', 'started_at'])
        .execute();

      await db.schema
        .createTable('cc_tokens')
        .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('kind', 'varchar(16)', (c) => c.notNull())
        .addColumn('subject', 'varchar(200)', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('text_counters')
        .addColumn('tenant_id', 'integer', (c) => c.primaryKey())
        .addColumn('out_sms', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('out_mms', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('in_sms', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('in_mms', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();

      await db.schema
        .createTable('kv')
        .addColumn('key', 'varchar(200)', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>) {
      for (const t of ['kv', 'text_counters', 'cc_tokens', 'call_records', 'directory_entities']) {
        await db.schema.dropTable(t).ifExists().execute();
      }
    },
  },
  '0002_event_continuity': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('event_log')
        .addColumn('tenant_id', 'integer', (c) => c.notNull())
        .addColumn('seq', 'bigint', (c) => c.notNull())
        .addColumn('channel', 'varchar(8)', (c) => c.notNull())
        .addColumn('tags', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('event_log_pk', ['tenant_id', 'seq'])
        .execute();
      await db.schema
        .createTable('event_streams')
        .addColumn('tenant_id', 'integer', (c) => c.primaryKey())
        .addColumn('next_seq', 'bigint', (c) => c.notNull())
        .addColumn('clean', 'integer', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('resume_sessions')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('api', 'varchar(8)', (c) => c.notNull())
        .addColumn('identity', 'varchar(200)', (c) => c.notNull())
        .addColumn('tenant_id', 'integer')
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('detached_at', 'bigint')
        .execute();
    },
    async down(db: Kysely<unknown>) {
      for (const t of ['resume_sessions', 'event_streams', 'event_log']) {
        await db.schema.dropTable(t).ifExists().execute();
      }
    },
  },
  '0003_webhooks': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('webhooks')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('tenant_id', 'integer', (c) => c.notNull())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('webhook_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('position', 'bigint', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('attempts', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_by_hook')
        .on('webhook_deliveries')
        .columns(['webhook_id', 'position'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      for (const t of ['webhook_deliveries', 'webhooks']) {
        await db.schema.dropTable(t).ifExists().execute();
      }
    },
  },
  // Cluster mode (docs/cluster.md). Times are epoch milliseconds of the database's clock.
  '0005_cluster': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('cluster_nodes')
        .addColumn('node_id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('url', 'text')
        .addColumn('host', 'varchar(255)', (c) => c.notNull())
        .addColumn('pid', 'integer', (c) => c.notNull())
        .addColumn('slot', 'integer', (c) => c.notNull())
        .addColumn('ttl_ms', 'integer', (c) => c.notNull())
        .addColumn('eligible', 'integer', (c) => c.notNull())
        .addColumn('started_at', 'bigint', (c) => c.notNull())
        .addColumn('heartbeat_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('tenant_leases')
        .addColumn('tenant_id', 'integer', (c) => c.primaryKey())
        .addColumn('owner_node', 'varchar(64)', (c) => c.notNull())
        .addColumn('epoch', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('granted_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('standalone_holder')
        .addColumn('slot', 'varchar(16)', (c) => c.primaryKey())
        .addColumn('node_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('host', 'varchar(255)', (c) => c.notNull())
        .addColumn('pid', 'integer', (c) => c.notNull())
        .addColumn('started_at', 'bigint', (c) => c.notNull())
        .addColumn('heartbeat_at', 'bigint', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>) {
      for (const t of ['standalone_holder', 'tenant_leases', 'cluster_nodes']) {
        await db.schema.dropTable(t).ifExists().execute();
      }
    },
  },
  '0007_cluster_security': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('auth_failures')
        .addColumn('lock_key', 'varchar(300)', (c) => c.primaryKey())
        .addColumn('failures', 'text', (c) => c.notNull())
        .addColumn('locked_until', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('socket_claims')
        .addColumn('claim_id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('client_key', 'varchar(300)', (c) => c.notNull())
        .addColumn('node_id', 'varchar(200)', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('socket_claims_by_client')
        .on('socket_claims')
        .columns(['client_key', 'expires_at'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      for (const t of ['socket_claims', 'auth_failures']) await db.schema.dropTable(t).ifExists().execute();
    },
  },
  '0004_call_record_windows': callRecordWindows,
  /** Failover (docs/cluster.md): live calls, queued calls among them, and agent states, durable. */
  '0008_live_calls': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('live_calls')
        .addColumn('tenant_id', 'integer', (c) => c.notNull())
        .addColumn('smdr_call_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('owner_node', 'varchar(200)', (c) => c.notNull())
        .addColumn('epoch', 'bigint', (c) => c.notNull())
        .addColumn('waiting', 'integer', (c) => c.notNull())
        .addColumn('started_at', 'bigint', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('live_calls_pk', ['tenant_id', 'smdr_call_id'])
        .execute();
      await db.schema
        .createTable('cc_agent_states')
        .addColumn('tenant_id', 'integer', (c) => c.notNull())
        .addColumn('ext', 'varchar(64)', (c) => c.notNull())
        .addColumn('owner_node', 'varchar(200)', (c) => c.notNull())
        .addColumn('epoch', 'bigint', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('cc_agent_states_pk', ['tenant_id', 'ext'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      for (const t of ['cc_agent_states', 'live_calls']) {
        await db.schema.dropTable(t).ifExists().execute();
      }
    },
  },
  /**
   * A live call's history (its record's segments), one row an item: it only grows, so a batch
   * writes the items added since the last one instead of the whole call again.
   */
  '0009_live_call_history': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('live_call_history')
        .addColumn('tenant_id', 'integer', (c) => c.notNull())
        .addColumn('smdr_call_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('live_call_history_pk', ['tenant_id', 'smdr_call_id', 'seq'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('live_call_history').ifExists().execute();
    },
  },
  // A node records the cluster protocol it speaks; one of another protocol cannot join while it
  // runs (docs/cluster.md § Upgrading). Nodes older than this column count as protocol 1.
  '0010_cluster_protocol': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('cluster_nodes')
        .addColumn('protocol', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('cluster_nodes').dropColumn('protocol').execute();
    },
  },
  // Which attachment of a resumable session wrote it last: a node whose socket was resumed on
  // another node may no longer write or remove it (docs/decisions.md, "Resume session holders").
  '0011_resume_session_holder': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('resume_sessions').addColumn('holder', 'varchar(64)').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('resume_sessions').dropColumn('holder').execute();
    },
  },
  // Which node's socket took a resumable session last: the sessions of a node that died with
  // its sockets open are let go by the others (docs/decisions.md, "Resume sessions of a dead node").
  '0012_resume_session_node': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('resume_sessions').addColumn('node', 'varchar(64)').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('resume_sessions').dropColumn('node').execute();
    },
  },
  // A phone's registration as its tenant's owner has it, durable like the agents' states: the
  // node that takes the tenant over (and any node, for the list across tenants) starts from it.
  '0013_live_device_states': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('live_device_states')
        .addColumn('tenant_id', 'integer', (c) => c.notNull())
        .addColumn('device_id', 'varchar(200)', (c) => c.notNull())
        .addColumn('owner_node', 'varchar(200)', (c) => c.notNull())
        .addColumn('epoch', 'bigint', (c) => c.notNull())
        .addColumn('registered', 'integer', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('live_device_states_pk', ['tenant_id', 'device_id'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('live_device_states').ifExists().execute();
    },
  },
  // The guesses under way of each (principal, address), counted over every node, so that guesses
  // sent to several nodes at once cannot together pass the lock-out (docs/cluster.md, "Security state").
  '0014_auth_guesses': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('auth_failures')
        .addColumn('guesses', 'text', (c) => c.notNull().defaultTo('[]'))
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('auth_failures').dropColumn('guesses').execute();
    },
  },
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
