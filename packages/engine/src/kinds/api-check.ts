import { ApiCheckCreate } from '@vigil/schema';
import { defineAdapter } from './define.js';

export const apiCheckAdapter = defineAdapter({
  kind: 'api-check',
  schemaFor: () => ApiCheckCreate,
  endpoints: { list: 'checks.list', create: 'checks.createApi', update: 'checks.updateApi', remove: 'checks.delete' },
  listQuery: { checkType: 'API' },
  sendsAutoAssignAlerts: true,
  setFields: ['tags', 'locations', 'privateLocations'],
});
