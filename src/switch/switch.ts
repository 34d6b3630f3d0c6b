import type { Clock } from '../core/clock.js';
import type { CallIdGenerator } from '../core/ids.js';
import type { Directory } from '../directory/directory.js';
import { type AcdPort, waitingAcdPort } from './acd-port.js';
import type { SwitchEvent } from './types.js';

export interface SwitchDeps {
  directory: Directory;
  clock: Clock;
  ids: CallIdGenerator;
  publish: (event: SwitchEvent) => void;
}

/** PLACEHOLDER: the engine is being built (issue 3). */
export class Switch {
  private acd: AcdPort = waitingAcdPort;
  constructor(readonly deps: SwitchDeps) {}
  setAcdPort(port: AcdPort): void {
    this.acd = port;
  }
  reset(): void {}
  resync(): void {}
}
