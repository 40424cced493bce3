import { defineConfig } from '@vigil-mon/cli';

export default defineConfig({
  projectName: 'Quickstart',
  logicalId: 'quickstart',
  checks: {
    checkMatch: ['checks/**/*.monitor.ts'],
    locations: ['eu-west-1', 'us-east-1'],
    frequency: 5,
    tags: ['quickstart'],
  },
});
