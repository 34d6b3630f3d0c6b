#!/usr/bin/env node
// The entry point. V8's compile cache first (Node >= 22.1; a no-op before): a start loads about a
// thousand modules, and compiling them is a fifth of a cold start (docs/benchmarks.md, "Cold
// start"). The commands are imported only then, so their modules are the ones it caches.
import module from 'node:module';

module.enableCompileCache?.();
await import('./run.js');
