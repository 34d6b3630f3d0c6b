import { parseAccountId } from '../../../core/accounts.js';
import { conflict, forbidden, invalid, notFound } from '../../../core/errors.js';
import { type AccessRule, inTenant, type Principal } from '../../../core/permissions.js';
import type { LegView } from '../../../switch/types.js';
import { Type } from '@sinclair/typebox';
import { halQuery } from '../hal/hal-schemas.js';
import { link } from '../hal/links.js';
import {
  type Ctx,
  type KeptBy,
  listEntity,
  LIVE_STATE,
  locationHeader,
  type ResourceDef,
} from '../hal/resource.js';
import { voiceSwitch } from '../switch-port.js';
import { parkLocationOf, playPromptOf, requiredFor } from './call-bodies.js';
import {
  ActiveCallListSchema,
  CallCreatedSchema,
  type CallRequestBody,
  CallRequestBodySchema,
  CallSchema,
  type MakeCallBody,
  MakeCallBodySchema,
} from './call-schemas.js';
import { ACTIVE_CALL_FIELDS, ActiveCallItem, callEntity, callHref } from './call-entities.js';
import type { Entity } from '../hal/model.js';

/** Tenant-admin and non-admin call-control users; scoped telco with CallControl. */
const CALLERS: AccessRule[] = ['ST:CC', 'TA', 'U'];

const TAGS = ['calls'];
const CallParams = Type.Object({
  callObserverId: Type.String({ description: 'The callId of a leg, as the call list and events give it.' }),
});
const LOCATION = locationHeader('The address of the new call (the caller’s leg).');

const isNonAdmin = (p: Principal) => p.authority === 'user' || p.authority === 'location';

/** A leg the requester may see and act on: its tenant, and for a non-admin only their own. */
function visibleLeg(ctx: Ctx, id: string): LegView {
  const leg = /^\d+$/.test(id) ? voiceSwitch(ctx.runtime).leg(id) : undefined;
  const p = ctx.principal;
  if (!leg || !inTenant(p, leg.tenantId) || (isNonAdmin(p) && leg.ext !== p.ext)) {
    throw notFound('CALL_NOT_FOUND', `No call ${id}.`, [{ type: 'callObserverId', value: id }]);
  }
  return leg;
}

/** An `<ext>@<tenantId>` the requester may act as. */
function actingExtension(ctx: Ctx, fieldName: string, accountId: string): { tenantId: number; ext: string } {
  const ref = parseAccountId(accountId);
  if (!ref) {
    throw invalid('INVALID_FIELD', `${fieldName}: "${accountId}" is not an account id (<ext>@<tenantId>).`, [
      { type: 'field', value: fieldName },
    ]);
  }
  const p = ctx.principal;
  if (!inTenant(p, ref.tenantId) || (isNonAdmin(p) && ref.ext !== p.ext)) {
    throw forbidden('NOT_YOUR_ACCOUNT', `The requester may not act as ${accountId}.`, [
      { type: 'accountId', value: accountId },
    ]);
  }
  const ext = ctx.runtime.directory.extension(ref.tenantId, ref.ext);
  if (!ext) {
    throw invalid('UNKNOWN_ACCOUNT', `No extension ${accountId}.`, [{ type: 'accountId', value: accountId }]);
  }
  // Only users and locations have phones and place or control calls.
  if (ext.type !== 'userExt' && ext.type !== 'locationExt') {
    throw invalid('INVALID_FIELD', `${fieldName}: ${accountId} is not a user or location extension.`, [
      { type: 'field', value: fieldName },
      { type: 'accountId', value: accountId },
    ]);
  }
  return ref;
}

/**
 * The call list, kept on the switch's live state (each call event moves it). Its items alone
 * (callId, smdrCallId, from, to) never move by themselves, but with a query (`expand`, `filter`)
 * the Calls' talkDuration shows: then it is not kept while one of the listed calls is answered.
 */
const CALL_LIST: KeptBy = {
  count: LIVE_STATE.count,
  keeps: (runtime, p, url) =>
    !url.includes('?') ||
    (p.tenantId !== undefined && !voiceSwitch(runtime).hasAnsweredLiveLeg(p.tenantId, p.ext)),
};

/**
 * One call, kept on the switch's live state: an ended one no longer changes (it is forgotten
 * with an event of a later call), a live one until its answer starts its talkDuration. So it is
 * not kept while any call of the requester's tenant is answered.
 */
const ONE_CALL: KeptBy = {
  count: LIVE_STATE.count,
  keeps: (runtime, p) => p.tenantId !== undefined && !voiceSwitch(runtime).hasAnsweredLiveLeg(p.tenantId),
};

/**
 * The requester's own live legs (a user's and a tenant admin's: "active calls of the requester");
 * a scoped operator, who has no extension, sees the whole tenant's.
 */
function activeCallItems(ctx: Ctx): Entity[] {
  const sw = voiceSwitch(ctx.runtime);
  const out: Entity[] = [];
  for (const leg of sw.liveLegs(ctx.principal.tenantId!, ctx.principal.ext))
    out.push(new ActiveCallItem(leg, sw));
  return out;
}

export const callResources: ResourceDef[] = [
  {
    path: '/v1/calls',
    verbs: {
      GET: {
        rules: CALLERS,
        doc: {
          operationId: 'listActiveCalls',
          summary: 'The requester’s active calls',
          tags: TAGS,
          query: halQuery('list'),
          responses: { '200': { description: 'The live legs.', schema: ActiveCallListSchema } },
        },
        cached: CALL_LIST,
        handle: (ctx) => ({
          entity: listEntity(ctx, {
            name: 'calls',
            schema: ACTIVE_CALL_FIELDS,
            items: activeCallItems(ctx),
            links: {
              self: link('/api/v1/calls'),
              'v1options:deviceIdType': link('/api/v1/enums/deviceidtype'),
            },
          }),
        }),
      },
      POST: {
        rules: CALLERS,
        doc: {
          operationId: 'makeCall',
          summary: 'Make a call, or retrieve a parked call',
          description:
            '`to` is required for makeCall, `featureData` for retrieveParkedCall (400 MISSING_FIELD). ' +
            'A deviceId that does not agree with deviceIdType, or is not a device of `from`, is 400 DEVICE_MISMATCH.',
          tags: TAGS,
          body: MakeCallBodySchema,
          responses: {
            '201': { description: 'The call was placed.', schema: CallCreatedSchema, headers: LOCATION },
          },
        },
        handle: (ctx) => {
          const body = ctx.body as MakeCallBody;
          const request = body.request ?? 'makeCall';
          const from = actingExtension(ctx, 'from', body.from);
          const deviceIdType = body.deviceIdType ?? 'device';
          const deviceId = body.deviceId;
          checkDevice(ctx, from, deviceIdType, deviceId, request === 'retrieveParkedCall');
          const sw = voiceSwitch(ctx.runtime);
          const leg =
            request === 'makeCall'
              ? sw.makeCall({
                  tenantId: from.tenantId,
                  fromExt: from.ext,
                  to: requiredFor(body.to, 'to', 'for makeCall'),
                  deviceId: deviceIdType === 'twinningDevice' ? 'twinningDevice' : deviceId,
                  deviceIdType: deviceIdType === 'external' ? 'external' : 'device',
                  playPrompt: playPromptOf(body.playPrompt),
                })
              : sw.retrieveParkedCall({
                  tenantId: from.tenantId,
                  fromExt: from.ext,
                  parkLocation: parkLocationOf(
                    requiredFor(body.featureData, 'featureData', 'for retrieveParkedCall'),
                  )!,
                  deviceId,
                });
          return {
            status: 201,
            location: callHref(leg.callObserverId),
            entity: {
              props: { callId: leg.callObserverId, smdrCallId: leg.smdrCallId },
              links: { self: link(callHref(leg.callObserverId)) },
            },
          };
        },
      },
    },
  },
  {
    path: '/v1/calls/:callObserverId',
    verbs: {
      GET: {
        rules: CALLERS,
        doc: {
          operationId: 'getCall',
          summary: 'One party’s leg of a call',
          description:
            'An ended call stays readable. Another tenant’s call, or for a non-admin another extension’s, is 404.',
          tags: TAGS,
          params: CallParams,
          responses: { '200': { description: 'The call.', schema: CallSchema } },
        },
        cached: ONE_CALL,
        handle: (ctx) => ({ entity: callEntity(visibleLeg(ctx, ctx.params.callObserverId)) }),
      },
      POST: {
        rules: CALLERS,
        doc: {
          operationId: 'controlCall',
          summary: 'Change the state of a call (answer, hang up, deflect, hold, resume, transfer, park)',
          description:
            '`myPartyId` is required for every request but hangupCall and `otherCallId` for transfer ' +
            '(400 MISSING_FIELD). A request on an ended call is 409 CALL_ENDED.',
          tags: TAGS,
          params: CallParams,
          body: CallRequestBodySchema,
          responses: {
            '200': {
              description: 'hangupCall answers the Call; every other request answers no body (spec).',
              schema: CallSchema,
              emptyAllowed: true,
            },
          },
        },
        handle: (ctx) => {
          const leg = visibleLeg(ctx, ctx.params.callObserverId);
          const body = ctx.body as CallRequestBody;
          const request = body.callRequest;
          // An ended call is still readable (GET answers 200), so acting on it is a state conflict.
          if (leg.state === 'ended') {
            throw conflict('CALL_ENDED', `Call ${leg.callObserverId} has ended.`, [
              { type: 'callObserverId', value: leg.callObserverId },
            ]);
          }
          const me =
            request === 'hangupCall'
              ? undefined
              : actingExtension(ctx, 'myPartyId', requiredFor(body.myPartyId, 'myPartyId', `for ${request}`));
          if (me && me.tenantId !== leg.tenantId) {
            throw forbidden('NOT_YOUR_ACCOUNT', 'myPartyId is not in the call’s tenant.', [
              { type: 'field', value: 'myPartyId' },
            ]);
          }
          let otherCallId: string | undefined;
          if (request === 'transfer') {
            otherCallId = requiredFor(body.otherCallId, 'otherCallId', 'for transfer');
            if (otherCallId === leg.callObserverId) {
              throw invalid('INVALID_FIELD', 'otherCallId must name a different call.', [
                { type: 'field', value: 'otherCallId' },
              ]);
            }
            visibleLeg(ctx, otherCallId);
          }
          const deviceId =
            request === 'answerCall' || request === 'resumeHeldCall' ? body.deviceId : undefined;
          // Spec: deviceId is "a device the user is logged into", checked as for makeCall.
          if (me && deviceId !== undefined) checkDevice(ctx, me, 'device', deviceId, false);
          const result = voiceSwitch(ctx.runtime).callRequest({
            tenantId: leg.tenantId,
            callObserverId: leg.callObserverId,
            request,
            myExt: me?.ext,
            deviceId,
            otherCallId,
            parkLocation: request === 'parkCall' ? parkLocationOf(body.featureData) : undefined,
          });
          if (request !== 'hangupCall') return { empty: true };
          const after = result ||
            voiceSwitch(ctx.runtime).leg(leg.callObserverId) || { ...leg, state: 'ended' as const };
          return { entity: callEntity(after) };
        },
      },
    },
  },
];

/** deviceIdType must agree with deviceId (spec: POST /api/v1/calls). */
function checkDevice(
  ctx: Ctx,
  from: { tenantId: number; ext: string },
  type: 'device' | 'external' | 'twinningDevice',
  deviceId: string | undefined,
  retrieve: boolean,
): void {
  const bad = (detail: string) =>
    invalid('DEVICE_MISMATCH', detail, [
      { type: 'field', value: 'deviceId' },
      { type: 'deviceId', value: deviceId ?? '' },
    ]);
  if (retrieve && type !== 'device') throw bad('retrieveParkedCall supports only deviceIdType device.');
  if (type === 'external') {
    if (!deviceId || !/^\+?[0-9*#]+$/.test(deviceId))
      throw bad('deviceIdType external needs a phone number as deviceId.');
    return;
  }
  if (type === 'twinningDevice') {
    if (deviceId && deviceId !== 'twinningDevice')
      throw bad('deviceIdType twinningDevice takes deviceId twinningDevice.');
    return;
  }
  if (deviceId === undefined || (deviceId === 'twinningDevice' && !retrieve)) return;
  const own = ctx.runtime.directory.devicesOf(from.tenantId, from.ext).some((d) => d.id === deviceId);
  if (!own) throw bad(`${deviceId} is not a device of ${from.ext}@${from.tenantId}.`);
}
