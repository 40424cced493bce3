/**
 * Dashboards: `/v1/dashboards`, shapes as the real service's OpenAPI document (`DashboardCreate`,
 * `DashboardUpdate`, `Dashboard`). A dashboard is a page showing the checks its tags select, at a
 * subdomain (`customUrl`) or a domain of the user's (`customDomain`). The document leaves these
 * objects open, so unknown properties are dropped, not refused.
 *
 * Left out on purpose: `keys` (the access keys of a private dashboard, which the service generates
 * and whose raw value is a secret) and `projectBindings`; a body carrying them is accepted and they
 * are dropped like any other unknown property.
 */
import { z } from 'zod';
import { RESPONSE_ARRAYS, Tags } from './embedded.js';
import { allOptional, withDefaults } from './helpers.js';
import { DASHBOARD_CHECKS_PER_PAGE_MAX, DASHBOARD_CHECKS_PER_PAGE_MIN } from './limits.js';
import { DashboardPaginationRate, DashboardRefreshRate, DashboardWidth } from './values.js';

/** One DNS label: what a subdomain may be. */
const SUBDOMAIN = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;
/** Two or more DNS labels, the last alphabetic, at most 253 characters. */
const DOMAIN = /^(?=.{1,253}$)(?:(?!-)[A-Za-z0-9-]{1,63}(?<!-)\.)+[A-Za-z]{2,63}$/;

/** Why `value` cannot be a dashboard's `customUrl`, or undefined. */
export function dashboardSubdomainProblem(value: string): string | undefined {
  return SUBDOMAIN.test(value)
    ? undefined
    : `must be a subdomain name: 1 to 63 letters, digits or dashes, not starting or ending with a dash, got ${JSON.stringify(value)}`;
}

/** Why `value` cannot be a dashboard's `customDomain`, or undefined. */
export function dashboardDomainProblem(value: string): string | undefined {
  return DOMAIN.test(value) ? undefined : `must be a domain name such as "status.example.com", got ${JSON.stringify(value)}`;
}

/**
 * Why `value` cannot be a dashboard's logo, favicon or logo link, or undefined. The document allows
 * any URI or `""`; only http and https are taken, since the page that shows the dashboard puts them
 * in `src` and `href` attributes, where `javascript:` and `data:` URLs run or embed content.
 */
export function dashboardWebUrlProblem(value: string): string | undefined {
  if (value === '') return undefined;
  let protocol: string | undefined;
  try {
    protocol = new URL(value).protocol;
  } catch {
    protocol = undefined;
  }
  return protocol === 'http:' || protocol === 'https:' ? undefined : `must be an http or https URL (or ""), got ${JSON.stringify(value)}`;
}

/** A string checked by `problem`, each failure one issue with its message. */
function checkedString(problem: (value: string) => string | undefined) {
  return z.string().superRefine((value, ctx) => {
    const message = problem(value);
    if (message !== undefined) ctx.addIssue({ code: 'custom', message, input: value });
  });
}

const WebUrl = checkedString(dashboardWebUrlProblem);

const dashboardFields = {
  /** The subdomain the dashboard is served at; unique across the service. */
  customUrl: checkedString(dashboardSubdomainProblem).nullable(),
  /** A domain of the user's that serves the dashboard; unique across the service. */
  customDomain: checkedString(dashboardDomainProblem).nullable(),
  logo: WebUrl.nullable(),
  favicon: WebUrl.nullable(),
  /** Where a click on the logo leads. */
  link: WebUrl.nullable(),
  header: z.string(),
  description: z.string().nullable(),
  width: DashboardWidth,
  refreshRate: DashboardRefreshRate,
  paginate: z.boolean(),
  paginationRate: DashboardPaginationRate,
  /** Failing checks first. */
  sortByStatus: z.boolean(),
  checksPerPage: z.number().int().min(DASHBOARD_CHECKS_PER_PAGE_MIN).max(DASHBOARD_CHECKS_PER_PAGE_MAX).nullable(),
  /** A check must carry every tag (true) or any one of them (false). */
  useTagsAndOperator: z.boolean().nullable(),
  hideTags: z.boolean(),
  enableIncidents: z.boolean(),
  expandChecks: z.boolean(),
  /** The tags that select the checks shown; every check of the account when empty. */
  tags: Tags,
  showHeader: z.boolean(),
  showCheckRunLinks: z.boolean(),
  showGroupNames: z.boolean(),
  customCSS: z.string().nullable(),
  isPrivate: z.boolean(),
  showP95: z.boolean(),
  showP99: z.boolean(),
};

/** The document's defaults; the nullable fields it gives none are stored as null. */
const DASHBOARD_DEFAULTS = {
  customUrl: null,
  customDomain: null,
  logo: null,
  favicon: null,
  link: null,
  description: null,
  width: 'FULL',
  refreshRate: 60,
  paginate: true,
  paginationRate: 60,
  sortByStatus: false,
  checksPerPage: 15,
  useTagsAndOperator: false,
  hideTags: false,
  enableIncidents: false,
  expandChecks: false,
  tags: [] as string[],
  showHeader: true,
  showCheckRunLinks: false,
  showGroupNames: true,
  customCSS: '',
  isPrivate: false,
  showP95: true,
  showP99: true,
} as const;

const dashboardCreateShape = withDefaults(dashboardFields, DASHBOARD_DEFAULTS);

/** Body of `POST /v1/dashboards`; only `header` is required. */
export const DashboardCreate = z.object(dashboardCreateShape);
export type DashboardCreate = z.infer<typeof DashboardCreate>;
export type DashboardCreateInput = z.input<typeof DashboardCreate>;

/** Body of `PUT /v1/dashboards/{dashboardId}` (merge: the fields sent replace the stored ones). */
export const DashboardUpdate = z.object(allOptional(dashboardFields));
export type DashboardUpdate = z.infer<typeof DashboardUpdate>;

/**
 * A dashboard as the service returns it. Typed as loosely as the document types it (a rate is any
 * number, a URL any string) and every field defaulted, so a dashboard another service made still
 * reads; `id` is a number, `dashboardId` the id its paths take.
 */
export const Dashboard = z.object({
  ...withDefaults(
    {
      ...dashboardFields,
      customUrl: z.string().nullable(),
      customDomain: z.string().nullable(),
      logo: z.string().nullable(),
      favicon: z.string().nullable(),
      link: z.string().nullable(),
      width: z.string(),
      refreshRate: z.number(),
      paginationRate: z.number(),
      checksPerPage: z.number().nullable(),
      tags: RESPONSE_ARRAYS.tags,
    },
    { ...DASHBOARD_DEFAULTS, header: '' },
  ),
  id: z.number().int(),
  dashboardId: z.string(),
  created_at: z.string(),
});
export type Dashboard = z.infer<typeof Dashboard>;

/** Path `{dashboardId}` of one dashboard. */
export const DashboardIdParams = z.object({ dashboardId: z.string().min(1) });
export type DashboardIdParams = z.infer<typeof DashboardIdParams>;

/**
 * Query of `GET /v1/dashboards/{dashboardId}`: with `type`, the path names the dashboard by its
 * `customUrl` or `customDomain` instead of its `dashboardId`.
 */
export const DashboardGetQuery = z.object({ type: z.enum(['customUrl', 'customDomain']).optional() });
export type DashboardGetQuery = z.infer<typeof DashboardGetQuery>;
