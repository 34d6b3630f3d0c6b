import { SwitchboardError } from '../errors.js';
import { embedded, findLink, type Hal, linkHref, props } from '../hal/hal.js';
import type { VoiceHttp } from './voice-http.js';
import type { VoiceNavigator } from './voice-navigator.js';
import type {
  ActiveCall,
  Call,
  CallRequestBody,
  CallRequestName,
  CreatedCall,
  MakeCallBody,
} from './voice-types.js';

export interface PlacedCall extends CreatedCall {
  /** The call's address (the `Location` the server answered). */
  href: string;
}

/**
 * Third-party call control (`v1:activeCalls`). A call's address comes from the server: the
 * `Location` of makeCall, a list element's `self`, or the dictionary's `v1:call` template.
 */
export class VoiceCalls {
  /** callId → address, learned from Location headers and list links. */
  private readonly hrefs = new Map<string, string>();

  constructor(
    private readonly http: VoiceHttp,
    private readonly nav: VoiceNavigator,
  ) {}

  /** The requester's active calls. */
  async list(): Promise<ActiveCall[]> {
    const list = await this.http.get<object>(await this.nav.v1Href('v1:activeCalls'));
    return embedded<ActiveCall>(list, 'calls').map((item) => {
      const self = findLink(item, 'self');
      if (self) this.hrefs.set(item.callId, self.href);
      return props(item);
    });
  }

  /** makeCall: `from` calls `to` (click to call). */
  make(body: Omit<MakeCallBody, 'request'> & { to: string }): Promise<PlacedCall> {
    return this.create({ request: 'makeCall', ...body });
  }

  /** retrieveParkedCall: `from` takes the call parked at `featureData` (e.g. `PL2`). */
  retrieveParked(body: { from: string; featureData: string; deviceId?: string }): Promise<PlacedCall> {
    return this.create({ request: 'retrieveParkedCall', deviceIdType: 'device', ...body });
  }

  async get(callId: string): Promise<Call> {
    return props(await this.resource(callId));
  }

  /** The Call with its links (e.g. `v1options:callRequest`). */
  async resource(callId: string): Promise<Hal<Call>> {
    return this.http.get<Call>(await this.hrefOf(callId));
  }

  /** Any call request; hangupCall answers the Call, the others nothing. */
  async request(callId: string, body: CallRequestBody): Promise<Call | undefined> {
    const answer = await this.http.send('POST', await this.hrefOf(callId), body);
    return answer.body === undefined ? undefined : props(answer.body as Hal<Call>);
  }

  answer(callId: string, myPartyId: string, deviceId?: string) {
    return this.simple(callId, 'answerCall', { myPartyId, deviceId });
  }
  async hangup(callId: string): Promise<Call> {
    const call = await this.request(callId, { callRequest: 'hangupCall' });
    if (!call) throw new SwitchboardError(`hangupCall on ${callId} answered no Call`);
    return call;
  }
  deflect(callId: string, myPartyId: string) {
    return this.simple(callId, 'deflectCall', { myPartyId });
  }
  hold(callId: string, myPartyId: string) {
    return this.simple(callId, 'holdCall', { myPartyId });
  }
  resume(callId: string, myPartyId: string, deviceId?: string) {
    return this.simple(callId, 'resumeHeldCall', { myPartyId, deviceId });
  }
  /** Transfers: `callId` is the active call, `otherCallId` the held one. */
  transfer(callId: string, myPartyId: string, otherCallId: string) {
    return this.simple(callId, 'transfer', { myPartyId, otherCallId });
  }
  /** Parks at `featureData` (a park location number), or where the system chooses. */
  park(callId: string, myPartyId: string, featureData?: string) {
    return this.simple(callId, 'parkCall', { myPartyId, featureData });
  }

  private async simple(
    callId: string,
    callRequest: CallRequestName,
    rest: Omit<CallRequestBody, 'callRequest'>,
  ): Promise<void> {
    const body: CallRequestBody = { callRequest };
    for (const [k, v] of Object.entries(rest)) if (v !== undefined) Object.assign(body, { [k]: v });
    await this.request(callId, body);
  }

  private async create(body: MakeCallBody): Promise<PlacedCall> {
    const answer = await this.http.send('POST', await this.nav.v1Href('v1:activeCalls'), body);
    const created = props(answer.body as Hal<CreatedCall>);
    const location = answer.headers.get('location') ?? linkHref(answer.body as Hal<CreatedCall>, 'self');
    this.hrefs.set(created.callId, location);
    return { ...created, href: location };
  }

  private async hrefOf(callId: string): Promise<string> {
    const known = this.hrefs.get(callId);
    if (known) return known;
    const templated = await this.nav.dictionaryHref('v1:call', { callObserverId: callId });
    if (templated) return templated;
    // Users and locations may not read the dictionary: their active calls link to themselves.
    await this.list();
    const listed = this.hrefs.get(callId);
    if (listed) return listed;
    throw new SwitchboardError(`no link to call ${callId}: not among this user's active calls`);
  }
}
