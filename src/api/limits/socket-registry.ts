/**
 * WebSocket admission and idle time-out, shared by both socket endpoints (docs/decisions.md §1.8):
 * `max` sockets in all, `perClient` per client (principal + IP, or IP for pending sockets), and
 * a socket with no traffic in either direction for `idleMs` is closed. Real time, like every transport timer.
 */
export interface SocketLimits {
  max: number;
  perClient: number;
  idleMs: number;
}

export type AdmissionRefusal = 'global' | 'client';

export interface SocketSlot {
  /** Traffic in either direction: postpones the idle close. */
  touch(): void;
  /** Frees the slot and stops the idle timer. Idempotent. */
  release(): void;
}

export class SocketRegistry {
  private total = 0;
  private readonly perClient = new Map<string, number>();

  constructor(private readonly limits: () => SocketLimits) {}

  /** Why a new socket of `client` would be refused now, or null when it may open. */
  refusal(client: string): AdmissionRefusal | null {
    const l = this.limits();
    if (this.total >= l.max) return 'global';
    if ((this.perClient.get(client) ?? 0) >= l.perClient) return 'client';
    return null;
  }

  /** Takes a slot (call after `refusal` said null); `onIdle` runs when the socket idles out. */
  admit(client: string, onIdle: () => void): SocketSlot {
    this.total++;
    this.perClient.set(client, (this.perClient.get(client) ?? 0) + 1);
    const { idleMs } = this.limits();
    let last = Date.now();
    let released = false;
    let timer: NodeJS.Timeout | undefined;
    // One timer per socket, re-armed lazily: traffic only stamps `last`.
    const arm = (delay: number) => {
      timer = setTimeout(() => {
        const idle = Date.now() - last;
        if (idle >= idleMs) {
          slot.release();
          onIdle();
        } else arm(idleMs - idle);
      }, delay);
      timer.unref?.();
    };
    const slot: SocketSlot = {
      touch: () => {
        last = Date.now();
      },
      release: () => {
        if (released) return;
        released = true;
        clearTimeout(timer);
        this.total--;
        const n = (this.perClient.get(client) ?? 1) - 1;
        if (n > 0) this.perClient.set(client, n);
        else this.perClient.delete(client);
      },
    };
    arm(idleMs);
    return slot;
  }

  open(client?: string): number {
    return client === undefined ? this.total : (this.perClient.get(client) ?? 0);
  }
}
