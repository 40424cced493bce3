/**
 * SSL certificate expiry: the one computation of "days remaining" from the certificate expiry an
 * https API run reports (`certificateExpiresAt`), used by `GET /v1/check-statuses`
 * (`sslDaysRemaining`) and by the ALERT_SSL notifications of channels with `sslExpiry`.
 */
const DAY_MS = 24 * 60 * 60 * 1000;

/** Whole days from `atMs` until the certificate expires (negative once it has); null without one. */
export function sslDaysRemaining(certificateExpiresAt: string | null | undefined, atMs: number): number | null {
  if (!certificateExpiresAt) return null;
  const expiresMs = Date.parse(certificateExpiresAt);
  return Number.isFinite(expiresMs) ? Math.floor((expiresMs - atMs) / DAY_MS) : null;
}

/** The UTC day number of `atMs`: a channel gets at most one ALERT_SSL per check per such day. */
export function utcDay(atMs: number): number {
  return Math.floor(atMs / DAY_MS);
}

/** The real service's default `sslExpiryThreshold` (days) for a channel that sets none. */
export const DEFAULT_SSL_EXPIRY_THRESHOLD = 30;
