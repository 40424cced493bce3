import { CheckGroupCreate } from '@vigil/schema';
import { defineAdapter } from './define.js';

export const checkGroupAdapter = defineAdapter({
  kind: 'check-group',
  schemaFor: () => CheckGroupCreate,
  endpoints: { list: 'checkGroups.list', create: 'checkGroups.create', update: 'checkGroups.update', remove: 'checkGroups.delete' },
  sendsAutoAssignAlerts: true,
  setFields: ['tags', 'locations', 'privateLocations'],
});
