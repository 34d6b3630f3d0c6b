/** Request value shapes the contact-center bodies share, and their conversion once validated. */
import { type Static, Type } from '@sinclair/typebox';

export const MAX_COUNT = 999_999_999_999_999;

/** `true`/`false` text; JSON booleans are accepted too. */
export const BoolText = () =>
  Type.Union([Type.Literal('true'), Type.Literal('false'), Type.Literal(true), Type.Literal(false)], {
    description: '`true` or `false` (text; JSON booleans are accepted too).',
  });
export type BoolText = Static<ReturnType<typeof BoolText>>;

/** A whole number as numeric text (JSON integers accepted too), from 0 to `max`. */
export const CountText = (max = MAX_COUNT) =>
  Type.Union(
    [
      Type.String({
        pattern: max <= 9 ? `^\\s*0*[0-${max}]\\s*$` : '^\\s*\\d{1,15}\\s*$',
        examples: [max <= 9 ? String(max) : '50'],
      }),
      Type.Integer({ minimum: 0, maximum: max }),
    ],
    {
      description:
        max < MAX_COUNT
          ? `Numeric text from 0 to ${max} (a JSON integer is accepted too).`
          : 'Numeric text (a JSON integer is accepted too).',
    },
  );
export type CountText = Static<ReturnType<typeof CountText>>;

export const OneOf = <T extends string>(values: readonly T[]) =>
  Type.Union(values.map((v) => Type.Literal(v)));

export const toBool = (v: BoolText): boolean => v === true || v === 'true';

/** The canonical text of a count (`' 007 '` → `'7'`). */
export const toCountText = (v: CountText): string => String(Number(typeof v === 'string' ? v.trim() : v));
