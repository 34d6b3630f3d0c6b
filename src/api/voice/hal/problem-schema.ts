import { Type } from '@sinclair/typebox';

/** The voice API's RFC 9457 problem details (docs/decisions.md §1.2), as documented and checked. */
export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'urn:switchboard:problem:<errorCode>' }),
    title: Type.String({ description: 'The HTTP reason phrase of the status.' }),
    status: Type.Integer({ minimum: 400, maximum: 599 }),
    detail: Type.String({ description: 'What went wrong, for a person.' }),
    errorCode: Type.String({ description: 'A stable, machine-readable code.' }),
    parameters: Type.Array(
      Type.Object(
        {
          type: Type.String({ description: 'A value of the parameterType enum.' }),
          value: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: 'Problem', additionalProperties: false },
);
