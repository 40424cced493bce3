import { MultiStepCheckCreate } from '@vigil/schema';
import { defineAdapter } from './define.js';

export const multiStepCheckAdapter = defineAdapter({
  kind: 'multistep-check',
  schemaFor: () => MultiStepCheckCreate,
  endpoints: { list: 'checks.list', create: 'checks.createMultiStep', update: 'checks.updateMultiStep', remove: 'checks.delete' },
  listQuery: { checkType: 'MULTI_STEP' },
  sendsAutoAssignAlerts: true,
  setFields: ['tags', 'locations', 'privateLocations'],
});
