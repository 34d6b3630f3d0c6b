/** Contact-center domain events (rendered on /6/v2/sock by api/ccs). PLACEHOLDER until issue 6. */
export interface CcEvent {
  type: 'cc';
  category: 'agent' | 'call' | 'queue';
  name: string;
  tenantId: number;
  at: number;
  data: Record<string, unknown>;
}
