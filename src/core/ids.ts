import { randomUUID } from 'node:crypto';

/** 2025-01-01T00:00:00Z: the epoch of call ids. */
export const CALL_ID_EPOCH_MS = Date.UTC(2025, 0, 1);

/**
 * Call ids (callObserverId, smdrCallId): decimal digit strings that are also safe JSON numbers.
 * Layout: (monotonic counter) * 16 + node id. The counter starts at (wall-clock ms since
 * 2025-01-01) * 1000 when the process starts and never goes backwards, so ids stay unique across
 * restarts (unless a process made more than 1000 ids per millisecond for its whole life) and
 * across up to 16 cluster nodes. Values stay below 2^53 until about 2042.
 */
export class CallIdGenerator {
  private last = 0;

  constructor(
    private nodeId = 0,
    private readonly wallClock: () => number = Date.now,
  ) {
    this.useNode(nodeId);
  }

  /**
   * Mints with another node id from now on (a cluster node whose slot was reassigned). Ids stay
   * unique: the counter never goes back, and the slot's previous holder stopped long before.
   */
  useNode(nodeId: number): void {
    if (!Number.isInteger(nodeId) || nodeId < 0 || nodeId > 15) throw new RangeError('nodeId must be 0..15');
    this.nodeId = nodeId;
  }

  next(): string {
    const base = (this.wallClock() - CALL_ID_EPOCH_MS) * 1000;
    this.last = Math.max(this.last + 1, base);
    const id = this.last * 16 + this.nodeId;
    if (!Number.isSafeInteger(id)) throw new RangeError('call id space exhausted');
    return String(id);
  }
}

export const uuid = (): string => randomUUID();

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string): boolean => UUID_RE.test(s);
