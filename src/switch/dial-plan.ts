/**
 * The dial plan (docs/switch.md): what a string of dialed digits reaches inside a tenant.
 *
 * 1. an extension of the tenant (user, location, ACD, call group, auto attendant);
 * 2. an emergency number of the tenant (default 911, 112), dialed as is or after the outside prefix;
 * 3. `+` and an E.164 number: an outside number;
 * 4. the outside-line prefix (the default dial plan's, else `9`) and at least three digits: an
 *    outside number;
 * 5. anything else: unknown (callError).
 *
 * Outside numbers follow the provisioned default dial plan when there is one: the rule with the
 * longest matching pattern strips and prepends digits, and its route (and the route's carrier)
 * must be enabled. Lenient targets (an outbound-queue dial, a queue redirect) also take a bare
 * number of 7 digits or more as an outside number.
 */
import type { Directory } from '../directory/directory.js';
import type { Extension } from '../directory/model.js';
import type { Carrier, DialPlan, Route } from '../directory/provisioning-model.js';

export const OUTSIDE_PREFIX = '9';
export const DEFAULT_EMERGENCY_NUMBERS = ['911', '112'] as const;

export type Destination =
  | { kind: 'extension'; ext: Extension }
  | { kind: 'outside'; number: string; emergency: boolean }
  | { kind: 'unknown'; reason?: string };

const DIALABLE = /^\+?[0-9*#]{1,32}$/;

/** Digits a phone or an API client may send (`+`, digits, `*`, `#`). */
export const isDialable = (s: string): boolean => DIALABLE.test(s);

interface SystemProperties {
  emergencyNumbers?: string[];
  parkRecallSeconds?: number;
}

/** The provider-wide settings (kind `systemProperties`), if provisioned. */
export const systemProperties = (dir: Directory) =>
  dir.get('systemProperties', 'system') as SystemProperties | undefined;

export function emergencyNumbers(dir: Directory, tenantId: number): readonly string[] {
  const configured = dir.tenant(tenantId)?.emergencyNumbers;
  if (configured && configured.length > 0) return configured;
  const system = systemProperties(dir)?.emergencyNumbers;
  return system && system.length > 0 ? system : DEFAULT_EMERGENCY_NUMBERS;
}

/** The default plan per directory, recomputed after any directory change (dialing is hot). */
const planCache = new WeakMap<Directory, { valid: boolean; plan?: DialPlan }>();

/** The enabled default dial plan, if one is provisioned. */
function defaultPlan(dir: Directory): DialPlan | undefined {
  let c = planCache.get(dir);
  if (!c) {
    const entry: { valid: boolean; plan?: DialPlan } = { valid: false };
    dir.onChange(() => {
      entry.valid = false;
    });
    planCache.set(dir, entry);
    c = entry;
  }
  if (!c.valid) {
    c.plan = (dir.list('dialPlan') as unknown as DialPlan[]).find((p) => p.isDefault && p.enabled !== false);
    c.valid = true;
  }
  return c.plan;
}

export function resolveDialed(
  dir: Directory,
  tenantId: number,
  dialed: string,
  lenient = false,
): Destination {
  const s = dialed.trim();
  if (!isDialable(s)) return { kind: 'unknown' };
  const ext = dir.extension(tenantId, s);
  if (ext && ext.enabled !== false) return { kind: 'extension', ext };
  const emergency = emergencyNumbers(dir, tenantId);
  if (emergency.includes(s)) return { kind: 'outside', number: s, emergency: true };
  const plan = defaultPlan(dir);
  if (s.startsWith('+') && s.length >= 4) return viaPlan(dir, plan, s.slice(1), `+${s.slice(1)}`);
  if (lenient && /^[0-9]{7,}$/.test(s)) return viaPlan(dir, plan, s);
  const prefix = plan?.outsideLinePrefix ?? OUTSIDE_PREFIX;
  const rest = s.slice(prefix.length);
  if (s.startsWith(prefix) && /^[0-9]{3,}$/.test(rest)) {
    if (emergency.includes(rest)) return { kind: 'outside', number: rest, emergency: true };
    return viaPlan(dir, plan, rest);
  }
  return { kind: 'unknown' };
}

/** An outside number through the dial plan's rule and route; `asDialed` keeps an explicit `+`. */
function viaPlan(dir: Directory, plan: DialPlan | undefined, digits: string, asDialed?: string): Destination {
  if (!plan) return { kind: 'outside', number: outsideNumber(asDialed ?? digits), emergency: false };
  let rule: DialPlan['rules'][number] | undefined;
  for (const r of plan.rules ?? []) {
    if (digits.startsWith(r.pattern) && (!rule || r.pattern.length > rule.pattern.length)) rule = r;
  }
  if (!rule) return { kind: 'unknown', reason: 'No dial-plan rule for the number' };
  const route = dir.get('route', rule.routeId) as Route | undefined;
  const carrier = route?.carrierId ? (dir.get('carrier', route.carrierId) as Carrier | undefined) : undefined;
  if (!route || route.enabled === false || carrier?.enabled === false) {
    return { kind: 'unknown', reason: 'No route for the number' };
  }
  const rewritten = (rule.prependDigits ?? '') + digits.slice(rule.stripDigits ?? 0);
  const number = asDialed && rewritten === digits ? asDialed : outsideNumber(rewritten);
  return { kind: 'outside', number, emergency: rule.destinationType === 'emergency' };
}

/**
 * Canonical form of an outside number: E.164 when it can be told (`+1` for 10-digit North American
 * numbers, `011` international access), the digits as given otherwise (short codes).
 */
export function outsideNumber(raw: string): string {
  const s = raw.trim();
  if (s.startsWith('+')) return `+${s.slice(1).replace(/[^0-9]/g, '')}`;
  const d = s.replace(/[^0-9*#]/g, '');
  if (/^[0-9]{10}$/.test(d)) return `+1${d}`;
  if (/^1[0-9]{10}$/.test(d)) return `+${d}`;
  if (/^011[0-9]{4,}$/.test(d)) return `+${d.slice(3)}`;
  return d;
}
