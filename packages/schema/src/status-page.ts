/**
 * Status pages themselves: `/v1/status-pages` and `/v1/status-pages/{statusPageId}`, shapes as the
 * real service's OpenAPI document has them (`StatusPageV2PublicApiUpdate` in, `StatusPageV2WithId`
 * and `StatusPageV2Read` out). The services, incidents and subscriptions shown on a page are in
 * status-pages.ts.
 *
 * A page is reached at its `url`, a subdomain, or at `customDomain`; the document lower-cases both,
 * and so does the schema. Its `cards` list the services it shows, each by id. The document leaves
 * these objects open, so unknown properties are dropped, not refused.
 *
 * Left out on purpose, accepted and dropped like any unknown property: `version` (the document
 * types it without saying what it counts) and a card's `statusPageId` (the path names the page).
 */
import { z } from 'zod';
import { dashboardDomainProblem, dashboardSubdomainProblem, dashboardWebUrlProblem } from './dashboards.js';
import { allOptional, queryInt, withDefaults } from './helpers.js';
import { LIST_LIMIT_MAX, LIST_LIMIT_MIN, STATUS_PAGE_DESCRIPTION_MAX } from './limits.js';
import { StatusPageTheme } from './values.js';

/** Why `value` cannot be a status page's logo, dark logo, favicon or redirect: http and https only. */
export function statusPageWebUrlProblem(value: string): string | undefined {
  return value === '' ? 'must be an http or https URL, got ""' : dashboardWebUrlProblem(value)?.replace(' (or "")', '');
}

/** A string checked by `problem`, each failure one issue with its message. */
function checkedString(problem: (value: string) => string | undefined, base: z.ZodString = z.string()) {
  return base.superRefine((value, ctx) => {
    const message = problem(value);
    if (message !== undefined) ctx.addIssue({ code: 'custom', message, input: value });
  });
}

const COLOR = /^#([0-9A-F]{3}|[0-9A-F]{6})$/;
const Color = checkedString((value) => (COLOR.test(value) ? undefined : `must be a colour in upper-case hex such as "#1A2B3C" or "#FFF", got ${JSON.stringify(value)}`));

/** The colours of one theme; the document requires all twelve. */
export const STATUS_PAGE_COLOR_KEYS = [
  'bodyBackgroundColor', 'headerBackgroundColor', 'headerFontColor', 'titleFontColor', 'bodyFontColor', 'bodyFontColorMuted',
  'navigationFontColor', 'linkFontColor', 'cardBackgroundColor', 'borderColor', 'primaryButtonBackgroundColor', 'primaryButtonFontColor',
] as const;
const ThemeColors = z.object(Object.fromEntries(STATUS_PAGE_COLOR_KEYS.map((key) => [key, Color])) as Record<(typeof STATUS_PAGE_COLOR_KEYS)[number], typeof Color>);
/** A page's own colours for its light and its dark theme. */
export const StatusPageThemeColors = z.object({ light: ThemeColors, dark: ThemeColors });
export type StatusPageThemeColors = z.infer<typeof StatusPageThemeColors>;

/** A service shown on a card: only its `id` is read; other fields of a Service are dropped. */
export const StatusPageCardServiceRef = z.object({ id: z.string().min(1) });

/** One card of a create or update body: a titled box of services, shown in the order listed. */
export const StatusPageCardInput = z.object({
  /** The id of a card this page already has, to keep it; a card without one is matched by name, else new. */
  id: z.string().min(1).optional(),
  name: z.string().min(1),
  services: z.array(StatusPageCardServiceRef).default([]),
});
export type StatusPageCardInput = z.infer<typeof StatusPageCardInput>;

const WebUrl = checkedString(statusPageWebUrlProblem);

const statusPageFields = {
  name: z.string().min(1),
  description: z.string().max(STATUS_PAGE_DESCRIPTION_MAX).nullable(),
  /** The subdomain the page is served at; unique across the service. */
  url: checkedString(dashboardSubdomainProblem, z.string().toLowerCase()),
  /** A domain of the user's that serves the page; unique across the service. */
  customDomain: checkedString(dashboardDomainProblem, z.string().toLowerCase()).nullable(),
  themeColors: StatusPageThemeColors.nullable(),
  logo: WebUrl.nullable(),
  logoDark: WebUrl.nullable(),
  /** Where a click on the logo leads. */
  redirectTo: WebUrl.nullable(),
  favicon: WebUrl.nullable(),
  defaultTheme: StatusPageTheme,
  /** In the order the page shows them. */
  cards: z.array(StatusPageCardInput),
};

/** The document's defaults; the nullable fields it gives none are stored as null. */
const STATUS_PAGE_DEFAULTS = {
  description: null,
  customDomain: null,
  themeColors: null,
  logo: null,
  logoDark: null,
  redirectTo: null,
  favicon: null,
  defaultTheme: 'AUTO',
} as const;

/** Body of `POST /v1/status-pages`; `name`, `url` and `cards` are required. */
export const StatusPageCreate = z.object(withDefaults(statusPageFields, STATUS_PAGE_DEFAULTS));
export type StatusPageCreate = z.infer<typeof StatusPageCreate>;
export type StatusPageCreateInput = z.input<typeof StatusPageCreate>;

/**
 * Body of `PUT /v1/status-pages/{statusPageId}`: the document's update body, which requires `name`,
 * `url` and `cards` as the create does. The other fields merge: those left out keep their values.
 */
export const StatusPageUpdate = z.object({
  ...allOptional(statusPageFields),
  name: statusPageFields.name,
  url: statusPageFields.url,
  cards: statusPageFields.cards,
});
export type StatusPageUpdate = z.infer<typeof StatusPageUpdate>;

/** A service as a card shows it (the document's `StatusPageV2Service`). */
export const StatusPageCardService = z.object({
  id: z.string(),
  name: z.string(),
  accountId: z.string(),
  created_at: z.string(),
  updated_at: z.string().nullable().default(null),
});

/** A card as the service returns it: its services in full. */
export const StatusPageCard = z.object({
  id: z.string(),
  name: z.string(),
  services: z.array(StatusPageCardService).default([]),
  created_at: z.string(),
  updated_at: z.string().nullable().default(null),
});
export type StatusPageCard = z.infer<typeof StatusPageCard>;

/**
 * A status page as the service returns it. Typed as loosely as the document types it (a URL any
 * string) and every optional field defaulted, so a page another service made still reads.
 */
export const StatusPage = z.object({
  ...withDefaults(
    {
      ...statusPageFields,
      description: z.string().nullable(),
      url: z.string(),
      customDomain: z.string().nullable(),
      themeColors: z.record(z.string(), z.unknown()).nullable(),
      logo: z.string().nullable(),
      logoDark: z.string().nullable(),
      redirectTo: z.string().nullable(),
      favicon: z.string().nullable(),
      defaultTheme: z.string(),
      cards: z.array(StatusPageCard),
      isPrivate: z.boolean(),
    },
    { ...STATUS_PAGE_DEFAULTS, cards: [], isPrivate: false },
  ),
  id: z.string(),
  accountId: z.string().optional(),
  created_at: z.string().optional(),
  updated_at: z.string().nullable().optional(),
});
export type StatusPage = z.infer<typeof StatusPage>;

/** Query of `GET /v1/status-pages`: the document's cursor paging (`limit` default 20). */
export const StatusPagesListQuery = z.object({
  limit: queryInt().min(LIST_LIMIT_MIN).max(LIST_LIMIT_MAX).default(20),
  /** The `nextId` of the previous page. */
  nextId: z.string().min(1).optional(),
});
export type StatusPagesListQuery = z.infer<typeof StatusPagesListQuery>;

/** One page of status pages, oldest first (the document's `StatusPagesV2PaginatedResponse`); `nextId` null on the last. */
export const StatusPagePage = z.object({
  length: z.number(),
  entries: z.array(StatusPage),
  nextId: z.string().nullable(),
});
export type StatusPagePage = z.infer<typeof StatusPagePage>;
