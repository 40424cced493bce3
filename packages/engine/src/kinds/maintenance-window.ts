import { MaintenanceWindowCreate } from '@vigil/schema';
import { defineAdapter } from './define.js';

export const maintenanceWindowAdapter = defineAdapter({
  kind: 'maintenance-window',
  schemaFor: () => MaintenanceWindowCreate,
  endpoints: {
    list: 'maintenanceWindows.list',
    create: 'maintenanceWindows.create',
    update: 'maintenanceWindows.update',
    remove: 'maintenanceWindows.delete',
  },
  setFields: ['tags'],
});
