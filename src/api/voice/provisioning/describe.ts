import type { AccessRule } from '../../../core/permissions.js';
import type { CollectionDef, SingletonDef } from './collection.js';
import { type Fields, describeField } from './fields.js';
import { SYSTEM } from './system-resources.js';
import { SETTINGS } from './system-settings.js';
import { TENANT_COLLECTIONS, tenants } from './tenant-resources.js';

/**
 * The resource reference of docs/provisioning.md, generated from the same tables that serve the
 * resources (a test keeps the document equal to it).
 */
const path = (p: string) => `/api${p.replace(/:(\w+)/g, '{$1}')}`;
const who = (rules: readonly AccessRule[] | undefined) => (rules ? rules.join(', ') : '—');

function fieldTable(fields: Fields): string[] {
  return [
    '| field | type |',
    '|---|---|',
    ...Object.entries(fields).map(([name, spec]) => `| ${name} | ${describeField(spec)} |`),
  ];
}

function collection(rel: string, d: CollectionDef): string[] {
  const r = d.rules;
  const get = d.itemGetElsewhere ? 'GET (voice API view)' : 'GET';
  return [
    `### ${rel}`,
    '',
    `- list: \`${path(d.listPath)}\` — GET ${who(r.list ?? r.read)}; POST ${who(r.create)}`,
    d.itemRoutesElsewhere
      ? `- items: \`${path(d.itemPath)}\``
      : `- item: \`${path(d.itemPath)}\` — ${get} ${who(r.read)}; PUT ${who(r.update)}; DELETE ${who(r.remove)}`,
    ...(d.ownerField
      ? [`- users and locations reach only records whose \`${d.ownerField}\` is their own`]
      : []),
    ...(d.refs
      ? [
          `- references (linked, embedded for \`expand\`, filter keys): ${Object.entries(d.refs)
            .map(([n, ref]) => `\`${n}\` by \`${ref.field}\``)
            .join(', ')}`,
        ]
      : []),
    '',
    ...fieldTable(d.fields),
    '',
  ];
}

function setting(d: SingletonDef): string[] {
  return [
    `### ${d.name}`,
    '',
    `- \`${path(d.path)}\` — GET ${who(d.rules.read)}; PUT ${who(d.rules.update)}`,
    '',
    ...fieldTable(d.fields),
    '',
  ];
}

export function describeProvisioning(): string {
  return [
    '## System-level collections',
    '',
    ...Object.entries(SYSTEM).flatMap(([rel, d]) => collection(rel, d)),
    '## System settings',
    '',
    ...SETTINGS.flatMap(setting),
    '## Tenants and tenant collections',
    '',
    ...collection('tenants', tenants),
    ...Object.entries(TENANT_COLLECTIONS).flatMap(([rel, d]) => collection(rel, d)),
  ].join('\n');
}
