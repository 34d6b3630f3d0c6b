/**
 * The only source of time for the switch and the contact center.
 * Real mode uses wall time and setTimeout; virtual mode moves only when advanced.
 */
export interface TimerHandle {
  readonly id: number;
}

export interface Clock {
  readonly mode: 'real' | 'virtual';
  now(): number;
  /** Runs `fn` once, `delayMs` from now. */
  setTimer(delayMs: number, fn: () => void): TimerHandle;
  clearTimer(handle: TimerHandle | undefined): void;
  /** Virtual mode only: move time forward, firing due timers in order. */
  advance(ms: number): void;
  /** Virtual mode only: back to the start instant with no timers. */
  reset(): void;
}

export class RealClock implements Clock {
  readonly mode = 'real' as const;
  private seq = 0;
  private readonly timers = new Map<number, NodeJS.Timeout>();

  now(): number {
    return Date.now();
  }

  setTimer(delayMs: number, fn: () => void): TimerHandle {
    const id = ++this.seq;
    const t = setTimeout(
      () => {
        this.timers.delete(id);
        fn();
      },
      Math.max(0, delayMs),
    );
    t.unref?.();
    this.timers.set(id, t);
    return { id };
  }

  clearTimer(handle: TimerHandle | undefined): void {
    if (!handle) return;
    const t = this.timers.get(handle.id);
    if (t) clearTimeout(t);
    this.timers.delete(handle.id);
  }

  advance(): void {
    throw new Error('the real clock cannot be advanced; start with --clock virtual');
  }

  reset(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}

interface VirtualTimer {
  id: number;
  at: number;
  fn: () => void;
}

export class VirtualClock implements Clock {
  readonly mode = 'virtual' as const;
  private current: number;
  private seq = 0;
  private timers: VirtualTimer[] = [];

  constructor(private readonly start: number = Date.UTC(2026, 0, 5, 9, 0, 0)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimer(delayMs: number, fn: () => void): TimerHandle {
    const timer = { id: ++this.seq, at: this.current + Math.max(0, delayMs), fn };
    // Keep sorted by (at, id) so equal deadlines fire in creation order.
    let i = this.timers.length;
    while (i > 0 && this.timers[i - 1].at > timer.at) i--;
    this.timers.splice(i, 0, timer);
    return { id: timer.id };
  }

  clearTimer(handle: TimerHandle | undefined): void {
    if (!handle) return;
    const i = this.timers.findIndex((t) => t.id === handle.id);
    if (i >= 0) this.timers.splice(i, 1);
  }

  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError('ms must be a non-negative number');
    const target = this.current + ms;
    while (this.timers.length > 0 && this.timers[0].at <= target) {
      const next = this.timers.shift()!;
      this.current = next.at;
      next.fn();
    }
    this.current = target;
  }

  reset(): void {
    this.timers = [];
    this.current = this.start;
  }

  /** Number of pending timers (for tests and the simulator state). */
  pending(): number {
    return this.timers.length;
  }
}

export function createClock(mode: 'real' | 'virtual'): Clock {
  return mode === 'virtual' ? new VirtualClock() : new RealClock();
}
