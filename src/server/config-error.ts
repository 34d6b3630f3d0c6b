/** A bad flag or variable: the CLI prints its one-line message and exits 2. */
export class ConfigError extends Error {}
