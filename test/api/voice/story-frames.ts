/**
 * The event frames the CTI story expects at each step (without timestamp, version and set id),
 * shared by the story over a generic HAL library (voice/story.test.ts) and the same story through
 * the typed client (client/voice-story.test.ts): both tell one story, so they expect one truth.
 */

/** The legs, call ids and phones of the story, as each test learns them. */
export interface StoryIds {
  bobLeg1: number;
  bobLeg2: number;
  bobLeg3: number;
  carolLeg: number;
  smdr1: string;
  smdr2: string;
  smdr3: string;
  bobPhone: string;
  carolPhone: string;
}

/** 5. Bob dials Carol: dial, offer, ringing, ringback. */
export const dialed = (x: Pick<StoryIds, 'bobLeg1' | 'carolLeg' | 'smdr1' | 'bobPhone' | 'carolPhone'>) => [
  {
    event: 'dial',
    observedParty: '101@1001',
    callId: x.bobLeg1,
    smdrCallId: x.smdr1,
    from: '101',
    to: '102',
    dialingDeviceId: x.bobPhone,
  },
  {
    event: 'offer',
    observedParty: '102@1001',
    callId: x.carolLeg,
    smdrCallId: x.smdr1,
    from: '101',
    to: '102',
    dialedDigits: '102',
    callingName: 'Bob Brown',
  },
  {
    event: 'ringing',
    observedParty: '102@1001',
    callId: x.carolLeg,
    smdrCallId: x.smdr1,
    ringingDeviceId: x.carolPhone,
  },
  { event: 'ringback', observedParty: '101@1001', callId: x.bobLeg1, smdrCallId: x.smdr1 },
];

/** 5. Carol's phone answers: an answer to each side. */
export const answered = (x: Pick<StoryIds, 'bobLeg1' | 'carolLeg' | 'smdr1' | 'carolPhone'>) => {
  const fields = { answeringParty: '102@1001', answeringDeviceId: x.carolPhone, smdrCallId: x.smdr1 };
  return [
    { event: 'answer', observedParty: '102@1001', callId: x.carolLeg, ...fields },
    { event: 'answer', observedParty: '101@1001', callId: x.bobLeg1, ...fields },
  ];
};

/** 6a. Bob holds Carol, then resumes her: the same event to each side. */
export const held = (x: Pick<StoryIds, 'bobLeg1' | 'carolLeg' | 'smdr1'>) => {
  const fields = { holdingParty: '101@1001', heldParty: '102@1001', smdrCallId: x.smdr1 };
  return [
    { event: 'hold', observedParty: '101@1001', callId: x.bobLeg1, ...fields },
    { event: 'hold', observedParty: '102@1001', callId: x.carolLeg, ...fields },
  ];
};

export const resumed = (x: Pick<StoryIds, 'bobLeg1' | 'carolLeg' | 'smdr1'>) => {
  const fields = { resumingParty: '101@1001', heldParty: '102@1001', smdrCallId: x.smdr1 };
  return [
    { event: 'resume', observedParty: '101@1001', callId: x.bobLeg1, ...fields },
    { event: 'resume', observedParty: '102@1001', callId: x.carolLeg, ...fields },
  ];
};

/** 6b. Bob transfers Carol to Dan: a transfer to each, then both of Bob's legs end. */
export const transferred = (x: Pick<StoryIds, 'bobLeg1' | 'bobLeg2' | 'carolLeg' | 'smdr1' | 'smdr2'>) => {
  const transferFields = {
    transferringParty: '101@1001',
    transferee: '102@1001',
    transferTarget: '103@1001',
  };
  return [
    {
      event: 'transfer',
      observedParty: '101@1001',
      callId: x.bobLeg2,
      smdrCallId: x.smdr2,
      ...transferFields,
    },
    {
      event: 'transfer',
      observedParty: '102@1001',
      callId: x.carolLeg,
      smdrCallId: x.smdr1,
      ...transferFields,
    },
    {
      event: 'end',
      observedParty: '101@1001',
      callId: x.bobLeg1,
      smdrCallId: x.smdr1,
      from: '101',
      to: '102',
      endingParty: '101@1001',
      endReason: 'transferred',
      callDuration: 'PT0S',
    },
    {
      event: 'end',
      observedParty: '101@1001',
      callId: x.bobLeg2,
      smdrCallId: x.smdr2,
      from: '101',
      to: '103',
      endingParty: '101@1001',
      endReason: 'transferred',
      callDuration: 'PT0S',
    },
  ];
};

/** 6c. Carol parks Dan on PL2: park, and her leg ends. */
export const parked = (x: Pick<StoryIds, 'carolLeg' | 'smdr1'>) => [
  {
    event: 'park',
    observedParty: '102@1001',
    callId: x.carolLeg,
    smdrCallId: x.smdr1,
    parkingPartyNumber: '102',
    parkingPartyName: 'Carol Chen',
    parkLocationId: 'PL2@1001',
    parkedPartyNumber: '103',
    parkedPartyName: 'Dan Diaz',
  },
  {
    event: 'end',
    observedParty: '102@1001',
    callId: x.carolLeg,
    smdrCallId: x.smdr1,
    from: '101',
    to: '102',
    endingParty: '102@1001',
    endReason: 'parked',
    callDuration: 'PT0S',
  },
];

/** 6c. Bob retrieves Dan from PL2: dial, retrieve. */
export const retrieved = (x: Pick<StoryIds, 'bobLeg3' | 'smdr3' | 'bobPhone'>) => [
  {
    event: 'dial',
    observedParty: '101@1001',
    callId: x.bobLeg3,
    smdrCallId: x.smdr3,
    from: '101',
    to: 'PL2',
    dialingDeviceId: x.bobPhone,
  },
  {
    event: 'retrieve',
    observedParty: '101@1001',
    callId: x.bobLeg3,
    smdrCallId: x.smdr3,
    retrievingPartyName: 'Bob Brown',
    retrievingPartyID: '101@1001',
    parkLocationID: 'PL2@1001',
    observedPartyID: '101@1001',
    parkedPartyNumber: '103',
    parkedPartyName: 'Dan Diaz',
  },
];

/** 7. Bob hangs up. */
export const hungUp = (x: Pick<StoryIds, 'bobLeg3' | 'smdr3'>) => [
  {
    event: 'end',
    observedParty: '101@1001',
    callId: x.bobLeg3,
    smdrCallId: x.smdr3,
    from: '101',
    to: 'PL2',
    endingParty: '101@1001',
    endReason: 'normal',
    callDuration: 'PT0S',
  },
];
