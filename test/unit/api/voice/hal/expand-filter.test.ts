import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseExpand } from '../../../../../src/api/voice/hal/expand.js';
import { applyFilter, parseFilter } from '../../../../../src/api/voice/hal/filter.js';
import type { Entity, ItemSchema } from '../../../../../src/api/voice/hal/model.js';
import { renderHal } from '../../../../../src/api/voice/hal/render.js';
import { DomainError } from '../../../../../src/core/errors.js';

const schema: ItemSchema = {
  fields: { name: 'string', n: 'integer', on: 'boolean', note: 'string' },
  embeds: {
    phones: {
      fields: { model: 'string', lines: 'integer' },
      embeds: { keys: { fields: { label: 'string' } } },
    },
  },
};

function item(
  name: string,
  n: number,
  on: boolean,
  note: string | undefined,
  phones: { model: string; lines: number }[],
): Entity {
  const props: Record<string, unknown> = { name, n, on };
  if (note !== undefined) props.note = note;
  return {
    props,
    summary: ['name'],
    links: { self: { href: `/x/${name}` } },
    embeds: {
      phones: () =>
        phones.map((p) => ({
          props: p,
          summary: ['model'],
          links: { self: { href: `/p/${p.model}` } },
          embeds: { keys: [{ props: { label: 'k1' }, summary: [], links: { self: { href: '/k/1' } } }] },
        })),
    },
  };
}

const items = [
  item('Alice Adams', 100, true, 'Sales, East', [{ model: 'phoneModelA', lines: 6 }]),
  item('Bob Brown', 101, false, '', [
    { model: 'bst', lines: 2 },
    { model: 'phoneModelB', lines: 6 },
  ]),
  item('carol chen', 102, true, undefined, []),
];

const names = (filters: string[]) =>
  applyFilter(items, parseFilter(filters, schema)).map((e) => e.props.name);

describe('filter', () => {
  const cases: [string[], string[]][] = [
    [['eq(n,101)'], ['Bob Brown']],
    [['ne(n,101)'], ['Alice Adams', 'carol chen']],
    [['gt(n,100)'], ['Bob Brown', 'carol chen']],
    [['ge(n,101)'], ['Bob Brown', 'carol chen']],
    [['lt(n,101)'], ['Alice Adams']],
    [['le(n,101)'], ['Alice Adams', 'Bob Brown']],
    [['eq(on,true)'], ['Alice Adams', 'carol chen']],
    [['ne(on,true)'], ['Bob Brown']],
    [['eq(name,Bob%20Brown)'], ['Bob Brown']],
    [['ct(name,Brown)'], ['Bob Brown']],
    [['ct(name,brown)'], []],
    [['ci(name,BROWN)'], ['Bob Brown']],
    [['sw(name,carol)'], ['carol chen']],
    [['ew(name,Adams)'], ['Alice Adams']],
    [['ct(note,Sales%2C%20East)'], ['Alice Adams']],
    [['est(note)'], ['Alice Adams', 'Bob Brown']],
    [['nes(note)'], ['carol chen']],
    [['emp(note)'], ['Bob Brown']],
    [['nem(note)'], ['Alice Adams']],
    [['emp(phones)'], ['carol chen']],
    [['nem(phones)'], ['Alice Adams', 'Bob Brown']],
    [['eq(phones.model,bst)'], ['Bob Brown']],
    [['gt(phones.lines,5)'], ['Alice Adams', 'Bob Brown']],
    [['est(phones.keys.label)'], ['Alice Adams', 'Bob Brown']],
    // OR within one parameter, AND across parameters
    [['eq(n,100),eq(n,102)'], ['Alice Adams', 'carol chen']],
    [['eq(n,100),eq(n,102)', 'eq(on,true)', 'sw(name,A)'], ['Alice Adams']],
  ];
  for (const [filters, want] of cases) {
    test(filters.join(' & '), () => assert.deepEqual(names(filters), want));
  }

  const errors = [
    'eq(n)', // value required
    'eq(n,)', // empty value
    'gt(name,a)', // gt on a string
    'ct(n,1)', // ct on an integer
    'eq(n,abc)', // not an integer
    'eq(on,yes)', // not a boolean
    'xx(name,a)', // unknown operator
    'eq(nope,a)', // unknown key
    'eq(phones.nope,a)', // unknown key in an embed
    'eq(nope.model,a)', // unknown embed on the path
    'est(name,a)', // a no-value operator with a value
    'eq(phones,a)', // value condition ending on an embed
    'name eq a', // not a condition
    'eq(name,%E0%A4%A)', // broken URI encoding
    '', // empty condition
  ];
  for (const f of errors) {
    test(`invalid: "${f}"`, () =>
      assert.throws(
        () => parseFilter([f], schema),
        (e: unknown) => e instanceof DomainError && e.kind === 'invalid' && e.code === 'INVALID_FILTER',
      ));
  }
});

describe('expand', () => {
  const list: Entity = { props: {}, links: { self: { href: '/x' } }, embeds: { items }, listOf: 'items' };
  const render = (...keys: string[]) =>
    renderHal(list, parseExpand(keys), 'v1') as { _embedded: { items: Record<string, unknown>[] } };
  const first = (...keys: string[]) =>
    render(...keys)._embedded.items[0] as Record<string, unknown> & {
      _embedded?: { phones: Record<string, unknown>[] };
    };

  test('without expand, list elements show their summary and links only', () => {
    const a = first();
    assert.deepEqual(Object.keys(a), ['name', '_links']);
  });
  test('item expands the elements; their embeds stay un-expanded', () => {
    const a = first('item');
    assert.equal(a.n, 100);
    assert.deepEqual(Object.keys(a._embedded!.phones[0]), ['model', '_links']);
  });
  test('an embed name expands it and its owner item', () => {
    const a = first('phones');
    assert.equal(a.n, 100);
    assert.equal(a._embedded!.phones[0].lines, 6);
    assert.deepEqual(
      Object.keys((a._embedded!.phones[0] as { _embedded: { keys: object[] } })._embedded.keys[0]),
      ['_links'],
    );
  });
  test('dotted keys expand deeper levels; all and -exclusion', () => {
    const deep = first('phones.keys');
    const k = (deep._embedded!.phones[0] as { _embedded: { keys: Record<string, unknown>[] } })._embedded
      .keys[0];
    assert.equal(k.label, 'k1');
    const all = first('item.all');
    assert.equal(all._embedded!.phones[0].lines, 6);
    const excluded = first('item.all', '-phones');
    assert.equal(excluded.n, 100);
    assert.equal(excluded._embedded!.phones[0].lines, undefined);
    assert.equal(first('phones', '-phones.keys')._embedded!.phones[0].lines, 6);
  });
  test('unknown keys are ignored', () => {
    assert.deepEqual(Object.keys(first('nothing', 'x.y.z', '-q')), ['name', '_links']);
  });
  test('comma-separated keys in one value', () => {
    const a = first('item,phones.keys');
    assert.equal(a.n, 100);
    assert.equal(a._embedded!.phones[0].lines, 6);
  });
});
