import { StatusPageServiceCreate } from '@vigil/schema';
import { defineAdapter } from './define.js';

export const statusPageServiceAdapter = defineAdapter({
  kind: 'status-page-service',
  schemaFor: () => StatusPageServiceCreate,
  endpoints: {
    list: 'statusPageServices.list',
    create: 'statusPageServices.create',
    update: 'statusPageServices.update',
    remove: 'statusPageServices.delete',
  },
});
