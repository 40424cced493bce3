export { defineConfig, type VigilConfig, type ChecklyConfig } from '@vigil/constructs';
