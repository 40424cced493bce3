export * from '@vigil/constructs';
