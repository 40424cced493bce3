export { defineConfig } from '@vigil/constructs';
