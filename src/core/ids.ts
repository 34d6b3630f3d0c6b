import { randomUUID } from 'node:crypto';

/**
 * Call ids (callObserverId, smdrCallId): decimal digit strings that are also safe JSON numbers.
 * Layout: (monotonic microsecond-ish counter) * 16 + node id. The counter starts at wall-clock
 * ms * 1000 when the process starts and never goes backwards, so ids stay unique across restarts
 * (unless a process made more than 1000 ids per millisecond for its whole life) and across up to
 * 16 cluster nodes. Max value stays below 2^53.
 */
export class CallIdGenerator {
  private last = 0;

  constructor(private readonly nodeId = 0) {
    if (nodeId < 0 || nodeId > 15) throw new RangeError('nodeId must be 0..15');
  }

  next(): string {
    const base = Date.now() * 1000;
    this.last = Math.max(this.last + 1, base);
    return String(this.last * 16 + this.nodeId);
  }
}

export const uuid = (): string => randomUUID();

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string): boolean => UUID_RE.test(s);
