/**
 * Secrets come from the environment (a CI secret, a vault agent, ...), never from the repository.
 * The fallbacks let the example plan and apply against the embedded local service with no setup;
 * a real project would rather fail fast: `requiredEnv('PAGERDUTY_SERVICE_KEY')`.
 */
export function envOr(name: string, demoValue: string): string {
  const value = process.env[name];
  return value === undefined || value === '' ? demoValue : value;
}

/** For projects that must never deploy a placeholder secret. */
export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`environment variable ${name} is not set`);
  return value;
}
