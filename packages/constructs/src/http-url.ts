import type { BuildContext } from './build-context.js';
import { formatPath, type PathSegment } from './path.js';

/** The schema's limit for a check's URL; longer ones are reported there. */
const MAX_URL_LENGTH = 2048;

/** `{{NAME}}`: filled in by the service when the check runs (environment variables, `GROUP_BASE_URL`). */
const PLACEHOLDER = /\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}/g;

/**
 * Whether `value` is an absolute http(s) URL once its placeholders are filled in. A placeholder
 * stands for any text: one at the start may hold the scheme and host (`{{BASE_URL}}/health`), one
 * elsewhere is taken as text that fits where it is (`https://{{HOST}}:{{PORT}}/{{PATH}}`).
 */
export function isHttpUrl(value: string): boolean {
  if (/^\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}/.test(value)) return true;
  let url: URL;
  try {
    // "0" fits a host label, a port and a path segment alike.
    url = new URL(value.replace(PLACEHOLDER, '0'));
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

/**
 * Reports a `url` prop that is not an absolute http(s) URL, as the service would only fail the
 * check's runs (or the alert's deliveries) later. Values of other types are left to the schema.
 * A webhook's URL is only warned about (`severity: 'warning'`): the service stores any text there,
 * and projects keep a placeholder until someone has the real URL; its deliveries fail until then.
 */
export function checkHttpUrl(
  context: BuildContext,
  value: unknown,
  propPath: string,
  payloadPath: PathSegment[],
  severity: 'error' | 'warning' = 'error',
): void {
  // An empty or overlong value gets the schema's own message, which says exactly that.
  if (typeof value !== 'string' || value === '' || value.length > MAX_URL_LENGTH || isHttpUrl(value)) return;
  const withScheme = `https://${value}`;
  // Only for a host without its scheme (`example.com/x`), not for a path (`/hooks`) or another scheme.
  const looksLikeHost = /^[a-z0-9]/i.test(value) && !value.includes('://');
  const suggestion = looksLikeHost && isHttpUrl(withScheme) ? `Did you mean "${withScheme}"? ` : '';
  if (severity === 'warning') {
    context.warning(
      propPath,
      `"${propPath}" is not an absolute http:// or https:// URL (got ${JSON.stringify(value)}): the service stores it, but every notification to it will fail`,
      `${suggestion}Set the receiver's URL before relying on this channel.`,
    );
    return;
  }
  context.error(
    propPath,
    `"${propPath}" must be an absolute http:// or https:// URL, got ${JSON.stringify(value)}`,
    `${suggestion}{{NAME}} placeholders are allowed, e.g. "{{BASE_URL}}/health".`,
  );
  context.reported.add(formatPath(payloadPath));
}
