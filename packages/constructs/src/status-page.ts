import { StatusPageCreate, type STATUS_PAGE_COLOR_KEYS, type StatusPageTheme } from '@vigil/schema';
import type { z } from 'zod';
import type { BuildContext, RefTarget } from './build-context.js';
import { Construct, type ConstructProps } from './construct.js';
import { formatPath, type PathSegment } from './path.js';
import { isConstruct, isExternalRef, unwrapConstructRef } from './ref.js';
import type { StatusPageServiceReference } from './status-page-service.js';
import { reportUnknownProps, type PropKeys } from './unknown-props.js';

/**
 * The colours of one theme, each in upper-case hex such as `#1A2B3C` or `#FFF`; all twelve are
 * required: bodyBackgroundColor, headerBackgroundColor, headerFontColor, titleFontColor,
 * bodyFontColor, bodyFontColorMuted, navigationFontColor, linkFontColor, cardBackgroundColor,
 * borderColor, primaryButtonBackgroundColor, primaryButtonFontColor.
 */
export type StatusPageColors = Record<(typeof STATUS_PAGE_COLOR_KEYS)[number], string>;

export interface StatusPageThemeColors {
  /** The colours of the light theme. */
  light: StatusPageColors;
  /** The colours of the dark theme. */
  dark: StatusPageColors;
}

export interface StatusPageCardProps {
  /** Title of the card. */
  name: string;
  /**
   * The services the card shows, in this order: StatusPageService constructs of the project, or
   * `StatusPageService.fromId(id)` for services it does not manage. Default none.
   */
  services?: StatusPageServiceReference[];
}

export interface StatusPageProps extends ConstructProps {
  /** Name of the page, shown as its title. */
  name: string;
  /** The subdomain the page is served at, e.g. `acme-status`; it names one page across the whole service. */
  url: string;
  /** The cards of the page, in the order it shows them, each a titled list of services. */
  cards: StatusPageCardProps[];
  /** A domain of yours that serves the page, e.g. `status.example.com`; it names one page across the whole service. */
  customDomain?: string;
  /** URL of the logo image (http or https). */
  logo?: string;
  /** URL of the logo shown in the dark theme (http or https). (Not in Checkly's construct; the service has it.) */
  logoDark?: string;
  /** Where a click on the logo leads (http or https). */
  redirectTo?: string;
  /** URL of the favicon image (http or https). */
  favicon?: string;
  /** The theme a viewer sees first: `AUTO` (their system's), `DARK` or `LIGHT`. Default `AUTO`. */
  defaultTheme?: StatusPageTheme;
  /** Text below the title, at most 500 characters. (Not in Checkly's construct; the service has it.) */
  description?: string;
  /**
   * The page's own colours for its light and dark themes, each colour in upper-case hex (`#1A2B3C`).
   * (Not in Checkly's construct; the service has it.)
   */
  themeColors?: StatusPageThemeColors;
}

const STATUS_PAGE_PROP_KEYS: PropKeys<StatusPageProps> = {
  protect: true,
  name: true,
  url: true,
  cards: true,
  customDomain: true,
  logo: true,
  logoDark: true,
  redirectTo: true,
  favicon: true,
  defaultTheme: true,
  description: true,
  themeColors: true,
};

const CARD_PROP_KEYS: PropKeys<StatusPageCardProps> = { name: true, services: true };

const SERVICE_TARGET: RefTarget = { kind: 'status-page-service', name: 'a StatusPageService', idType: 'string' };

const WEB_URL_HINT = 'Use an absolute http or https URL, e.g. "https://example.com/logo.png".';
const HINTS: Readonly<Record<string, string>> = {
  url: 'url is the subdomain alone, e.g. "acme-status"; put a whole host name such as "status.example.com" in customDomain.',
  customDomain: 'customDomain is a host name alone, e.g. "status.example.com", without scheme or path.',
  logo: WEB_URL_HINT,
  logoDark: WEB_URL_HINT,
  redirectTo: WEB_URL_HINT,
  favicon: WEB_URL_HINT,
};

/** The names a page is reached by, each unique across the service. */
const NAME_PROPS = ['url', 'customDomain'] as const;

/** What identifies a referenced service within one card: the construct itself, or the fromId id. */
function serviceIdentity(value: unknown): unknown {
  const unwrapped = unwrapConstructRef(value);
  if (isExternalRef(unwrapped)) return `id:${String(unwrapped.remoteId)}`;
  return isConstruct(unwrapped) ? unwrapped : undefined;
}

/**
 * A status page: cards of status-page services, at a subdomain (`url`) or a domain of yours
 * (`customDomain`). Created on the service by `/v1/status-pages` after the services its cards show.
 * `vigil server` stores status pages and serves them through that API, but does not render them as
 * web pages yet.
 */
export class StatusPage extends Construct {
  readonly props: StatusPageProps;

  /**
   * @param logicalId unique (per kind) name of the status page in this project
   * @param props its name, where it is served and the cards it shows
   */
  constructor(logicalId: string, props: StatusPageProps) {
    super('status-page', logicalId, props);
    this.props = props;
  }

  protected payloadSchema(): z.ZodType {
    return StatusPageCreate;
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return STATUS_PAGE_PROP_KEYS;
  }

  protected override fieldHint(payloadPath: PathSegment[]): string | undefined {
    const [head] = payloadPath;
    return (typeof head === 'string' ? HINTS[head] : undefined) ?? super.fieldHint(payloadPath);
  }

  /** A card's service is `services[j]` in the props and `services[j].id` in the payload. */
  protected override propPath(payloadPath: PathSegment[]): string {
    const [head, card, services, index, id] = payloadPath;
    if (head === 'cards' && services === 'services' && id === 'id' && payloadPath.length === 5) return formatPath(['cards', card!, 'services', index!]);
    return formatPath(payloadPath);
  }

  protected buildPayload(context: BuildContext): Record<string, unknown> {
    const { protect: _protect, cards, ...fields } = this.props;
    this.#reportNamesTakenInProject(context);
    return { ...fields, cards: Array.isArray(cards) ? cards.map((card, index) => this.#card(context, card, index)) : cards };
  }

  #card(context: BuildContext, card: unknown, cardIndex: number): unknown {
    if (typeof card !== 'object' || card === null || Array.isArray(card)) return card;
    const base = `cards[${cardIndex}]`;
    reportUnknownProps(context, card, CARD_PROP_KEYS, { owner: 'a status page card', base });
    const { name, services } = card as Partial<StatusPageCardProps>;
    if (!Array.isArray(services)) return { name, services };
    const seen = new Set<unknown>();
    return {
      name,
      services: services.map((service, index) => {
        const propPath = `${base}.services[${index}]`;
        const identity = serviceIdentity(service);
        if (identity !== undefined && seen.has(identity)) {
          context.error(propPath, `"${propPath}" lists the same service a second time on this card`, 'A card shows each service once; remove the repeated entry.');
          context.reported.add(`${propPath}.id`);
          return { id: undefined };
        }
        seen.add(identity);
        return { id: context.reference(service, SERVICE_TARGET, propPath, ['cards', cardIndex, 'services', index, 'id']) };
      }),
    };
  }

  /**
   * A url or customDomain an earlier status page of this project has: the second create would be
   * refused by the service (409) halfway through an apply, so it is reported here instead.
   */
  #reportNamesTakenInProject(context: BuildContext): void {
    for (const prop of NAME_PROPS) {
      const value = this.props[prop];
      if (typeof value !== 'string' || value === '') continue;
      for (const other of context.project.constructs()) {
        if (other === this) break;
        const theirs = other.kind === 'status-page' ? (other as { props?: Partial<StatusPageProps> }).props?.[prop] : undefined;
        if (typeof theirs !== 'string' || theirs.toLowerCase() !== value.toLowerCase()) continue;
        context.error(prop, `"${prop}" ${JSON.stringify(value)} is already the ${prop} of ${other.describe()}`, `A ${prop} names one status page across the service; give each page its own.`);
        context.reported.add(prop);
        break;
      }
    }
  }
}
