/** @vigil/runner: runs one check and returns a check result (spec §2.5). See docs/testing.md. */
export {};
