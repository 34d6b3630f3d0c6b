/** Typed listeners: `on` returns a function that removes the listener. */
export class Listeners<Events extends { [K in keyof Events]: (...args: never[]) => void }> {
  private readonly map = new Map<keyof Events, Set<Events[keyof Events]>>();

  on<K extends keyof Events>(name: K, listener: Events[K]): () => void {
    let set = this.map.get(name);
    if (!set) this.map.set(name, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  emit<K extends keyof Events>(name: K, ...args: Parameters<Events[K]>): void {
    for (const l of [...(this.map.get(name) ?? [])]) {
      try {
        (l as (...a: Parameters<Events[K]>) => void)(...args);
      } catch (e) {
        // A listener's bug must not break the socket; report it without throwing into ws.
        queueMicrotask(() => {
          throw e;
        });
      }
    }
  }

  count<K extends keyof Events>(name: K): number {
    return this.map.get(name)?.size ?? 0;
  }
}
