import type { Generated } from 'kysely';

/** Kysely table types. JSON columns hold text on both dialects. */
export interface DirectoryEntitiesTable {
  kind: string;
  id: string;
  tenant_id: number | null;
  data: string;
  updated_at: number;
}

export interface CallRecordsTable {
  smdr_call_id: string;
  tenant_id: number;
  started_at: number;
  answered_at: number | null;
  ended_at: number;
  from_number: string;
  to_number: string;
  outcome: string;
  /** JSON: the record body (parties, segments, contact-center details). */
  data: string;
}

export interface CcTokensTable {
  token_hash: string;
  kind: 'access' | 'refresh';
  subject: string;
  expires_at: number;
  created_at: number;
}

export interface TextCountersTable {
  tenant_id: number;
  out_sms: number;
  out_mms: number;
  in_sms: number;
  in_mms: number;
}

export interface KvTable {
  key: string;
  value: string;
}

export interface Database {
  directory_entities: DirectoryEntitiesTable;
  call_records: CallRecordsTable;
  cc_tokens: CcTokensTable;
  text_counters: TextCountersTable;
  kv: KvTable;
}

export type { Generated };
