import type { AutoAttendantAction } from '../../../directory/model.js';

/** Enum values the directory model already fixes; the enum must list exactly these. */
export const AUTO_ATTENDANT_ACTIONS: readonly AutoAttendantAction['action'][] = [
  'transferToExtension',
  'transferToAcd',
  'transferToGroup',
  'repeatMenu',
  'disconnect',
];
