import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { DashboardCreate, type DashboardPaginationRate, type DashboardRefreshRate, type DashboardWidth } from '@vigil/schema';
import type { z } from 'zod';
import type { BuildContext } from './build-context.js';
import { Construct, type ConstructProps } from './construct.js';
import type { PathSegment } from './path.js';
import type { PropKeys } from './unknown-props.js';

/**
 * Custom CSS: a file (`{ entrypoint: './dashboard.css' }`, resolved from the file that creates the
 * dashboard, inside the project root) or the CSS itself (`{ content: '...' }`).
 */
export type DashboardCss = { entrypoint: string; content?: never } | { content: string; entrypoint?: never };

export interface DashboardProps extends ConstructProps {
  /**
   * The subdomain the dashboard is served at, e.g. `acme-status`. It names one dashboard across the
   * whole service. Required unless `customDomain` is set.
   */
  customUrl?: string;
  /**
   * A domain of yours that serves the dashboard, e.g. `status.example.com`. It names one dashboard
   * across the whole service. Required unless `customUrl` is set.
   */
  customDomain?: string;
  /** Text at the top of the dashboard. Default empty. */
  header?: string;
  /** Text below the header. */
  description?: string;
  /** The checks shown: those with these tags (every check of the account when empty). Default `[]`. */
  tags?: string[];
  /** A check must carry every tag in `tags` (true) or any one of them (false). Default false. */
  useTagsAndOperator?: boolean;
  /** URL of the logo image (http or https). */
  logo?: string;
  /** URL of the favicon image (http or https). */
  favicon?: string;
  /** Where a click on the logo leads (http or https). */
  link?: string;
  /** The whole screen (`FULL`) or a 960-pixel column (`960PX`). Default `FULL`. */
  width?: DashboardWidth;
  /** Seconds between reloads: 60, 300 or 600. Default 60. */
  refreshRate?: DashboardRefreshRate;
  /** Splits the checks over pages that turn by themselves. Default true. */
  paginate?: boolean;
  /** Seconds between page turns: 30, 60 or 300. Default 60. */
  paginationRate?: DashboardPaginationRate;
  /** Checks per page, 1 to 20. Default 15. */
  checksPerPage?: number;
  /** Failing checks first. Default false. (Not in Checkly's construct; the service has it.) */
  sortByStatus?: boolean;
  /** Hides the checks' tags. Default false. */
  hideTags?: boolean;
  /** Shows the account's incidents. Default false. */
  enableIncidents?: boolean;
  /** Shows the checks expanded. Default false. */
  expandChecks?: boolean;
  /** Shows the header and description. Default true. */
  showHeader?: boolean;
  /** Links each check to its runs. Default false. (Not in Checkly's construct; the service has it.) */
  showCheckRunLinks?: boolean;
  /** Shows the checks' group names. Default true. (Not in Checkly's construct; the service has it.) */
  showGroupNames?: boolean;
  /** CSS applied to the dashboard: `{ entrypoint: './dashboard.css' }` or `{ content: '...' }`. */
  customCSS?: DashboardCss;
  /** Only viewers with a key of the dashboard see it. Default false. */
  isPrivate?: boolean;
  /** Shows the 95th percentile of response times. Default true. */
  showP95?: boolean;
  /** Shows the 99th percentile of response times. Default true. */
  showP99?: boolean;
}

const DASHBOARD_PROP_KEYS: PropKeys<DashboardProps> = {
  protect: true,
  customUrl: true,
  customDomain: true,
  header: true,
  description: true,
  tags: true,
  useTagsAndOperator: true,
  logo: true,
  favicon: true,
  link: true,
  width: true,
  refreshRate: true,
  paginate: true,
  paginationRate: true,
  checksPerPage: true,
  sortByStatus: true,
  hideTags: true,
  enableIncidents: true,
  expandChecks: true,
  showHeader: true,
  showCheckRunLinks: true,
  showGroupNames: true,
  customCSS: true,
  isPrivate: true,
  showP95: true,
  showP99: true,
};

const WEB_URL_HINT = 'Use an absolute http or https URL, e.g. "https://example.com/logo.png".';
const HINTS: Readonly<Record<string, string>> = {
  customUrl: 'customUrl is the subdomain alone, e.g. "acme-status"; put a whole host name such as "status.example.com" in customDomain.',
  customDomain: 'customDomain is a host name alone, e.g. "status.example.com", without scheme or path.',
  logo: WEB_URL_HINT,
  favicon: WEB_URL_HINT,
  link: WEB_URL_HINT,
};

/** The names a dashboard is reached by, each unique across the service. */
const NAME_PROPS = ['customUrl', 'customDomain'] as const;

/**
 * A dashboard: a page showing the state of the checks its tags select, at a subdomain
 * (`customUrl`) or a domain of yours (`customDomain`). Created on the service by `/v1/dashboards`.
 * `vigil server` stores dashboards and serves them through that API, but does not render them as
 * web pages yet.
 */
export class Dashboard extends Construct {
  readonly props: DashboardProps;

  /**
   * @param logicalId unique (per kind) name of the dashboard in this project
   * @param props where it is served, which checks it shows and how
   */
  constructor(logicalId: string, props: DashboardProps) {
    super('dashboard', logicalId, props);
    this.props = props;
  }

  protected payloadSchema(): z.ZodType {
    return DashboardCreate;
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return DASHBOARD_PROP_KEYS;
  }

  protected override fieldHint(payloadPath: PathSegment[]): string | undefined {
    const [head] = payloadPath;
    return (typeof head === 'string' ? HINTS[head] : undefined) ?? super.fieldHint(payloadPath);
  }

  protected buildPayload(context: BuildContext): Record<string, unknown> {
    const { protect: _protect, customCSS, header, ...fields } = this.props;
    if (!this.props.customUrl && !this.props.customDomain) {
      context.error(
        'customUrl',
        '"customUrl" or "customDomain" is required',
        'Serve the dashboard at a subdomain with customUrl: "acme-status", or at a domain of yours with customDomain: "status.example.com".',
      );
    }
    this.#reportNamesTakenInProject(context);
    // Checkly's construct makes the header optional while the service requires one: none is empty.
    return { ...fields, header: header ?? '', customCSS: this.#css(context, customCSS) };
  }

  /**
   * A customUrl or customDomain an earlier dashboard of this project has: the second create would
   * be refused by the service (409) halfway through an apply, so it is reported here instead.
   */
  #reportNamesTakenInProject(context: BuildContext): void {
    for (const prop of NAME_PROPS) {
      const value = this.props[prop];
      if (typeof value !== 'string' || value === '') continue;
      for (const other of context.project.constructs()) {
        if (other === this) break;
        const theirs = other.kind === 'dashboard' ? (other as { props?: Partial<DashboardProps> }).props?.[prop] : undefined;
        if (typeof theirs !== 'string' || theirs.toLowerCase() !== value.toLowerCase()) continue;
        context.error(prop, `"${prop}" ${JSON.stringify(value)} is already the ${prop} of ${other.describe()}`, `A ${prop} names one dashboard across the service; give each dashboard its own.`);
        context.reported.add(prop);
        break;
      }
    }
  }

  /** The CSS to send, or undefined (the service's default, none) with a diagnostic when it cannot be had. */
  #css(context: BuildContext, css: unknown): string | undefined {
    if (css === undefined) return undefined;
    const source = (typeof css === 'object' && css !== null ? css : {}) as { entrypoint?: unknown; content?: unknown };
    const hasEntrypoint = typeof source.entrypoint === 'string';
    if (hasEntrypoint === (typeof source.content === 'string')) {
      context.error(
        'customCSS',
        '"customCSS" must have exactly one of "entrypoint" (a CSS file) or "content" (the CSS itself)',
        "For example `customCSS: { entrypoint: './dashboard.css' }`.",
      );
      return undefined;
    }
    if (!hasEntrypoint) return source.content as string;
    const file = this.resolveUserPath(source.entrypoint as string);
    let real: string;
    try {
      real = realpathSync(file);
    } catch {
      context.error('customCSS.entrypoint', `"customCSS.entrypoint" file not found: ${file}`, 'The file is resolved relative to the file being loaded (the monitor or check file), as in Checkly.');
      return undefined;
    }
    // The CSS is uploaded to the service (and shown in plans), so only files of the project are read.
    const root = realpathSync(this.project.root);
    if (real !== root && !real.startsWith(root + path.sep)) {
      const shown = real === file ? real : `${file} -> ${real}`;
      context.error(
        'customCSS.entrypoint',
        `"customCSS.entrypoint" (${shown}) is outside the project root, so it cannot be uploaded with the dashboard`,
        `Keep the CSS file inside the project root (${root}), or pass the CSS itself as { content }.`,
      );
      return undefined;
    }
    try {
      return readFileSync(real, 'utf8');
    } catch (error) {
      context.error('customCSS.entrypoint', `"customCSS.entrypoint" (${real}) cannot be read: ${(error as Error).message}`);
      return undefined;
    }
  }
}
