import { PRIVATE_LOCATION_SLUG, PrivateLocationCreate } from '@vigil/schema';
import type { z } from 'zod';
import type { BuildContext } from './build-context.js';
import { Construct, type ConstructProps } from './construct.js';
import { externalRef, isConstruct, isExternalRef, unwrapConstructRef, uuidIdProblem, type ExternalRef } from './ref.js';
import type { PropKeys } from './unknown-props.js';

export interface PrivateLocationProps extends ConstructProps {
  /** Name of the private location. */
  name: string;
  /**
   * Its slug: 1 to 30 letters, digits or dashes, unique in the account and never a data-center
   * location's name (`eu-west-1`). Checks name the location by it; changing it makes a new location.
   */
  slugName: string;
  /** Icon the web app shows (a GitHub Octicon name such as `location`, `server`, `globe`). Default `location`. */
  icon?: string;
  /** Proxy for outgoing HTTP calls of API checks run in the location, e.g. `https://user:pass@proxy:3128`. */
  proxyUrl?: string;
}

const PRIVATE_LOCATION_PROP_KEYS: PropKeys<PrivateLocationProps> = { protect: true, name: true, slugName: true, icon: true, proxyUrl: true };

/** What a check's or group's `privateLocations` takes: a slug name, a `PrivateLocation`, or `PrivateLocation.fromId(id)`. */
export type PrivateLocationReference = string | PrivateLocation | ExternalRef<'private-location', string>;

/**
 * A private location: checks run from it (`privateLocations: [location]`) on agents the account
 * runs itself. Created on the service by `/v1/private-locations`.
 */
export class PrivateLocation extends Construct {
  readonly props: PrivateLocationProps;

  /**
   * @param logicalId unique (per kind) name of the private location in this project
   * @param props its name, slug, icon and proxy
   */
  constructor(logicalId: string, props: PrivateLocationProps) {
    super('private-location', logicalId, props);
    this.props = props;
  }

  /** Its slug name: what a check's `privateLocations` sends for it. */
  get slugName(): string {
    return this.props.slugName;
  }

  /**
   * Refers to a private location that exists on the service but is not managed by this project.
   * @param id the private location's id on the monitoring service, a UUID
   */
  static fromId(id: string): ExternalRef<'private-location', string> {
    return externalRef('private-location', id, uuidIdProblem('PrivateLocation.fromId', id));
  }

  protected payloadSchema(): z.ZodType {
    return PrivateLocationCreate;
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return PRIVATE_LOCATION_PROP_KEYS;
  }

  protected buildPayload(context: BuildContext): Record<string, unknown> {
    const { name, slugName, icon, proxyUrl } = this.props;
    if (typeof slugName === 'string' && !PRIVATE_LOCATION_SLUG.test(slugName)) {
      context.error('slugName', `"slugName" must be 1 to 30 letters, digits or dashes, and not a data-center location name such as "eu-west-1", got ${JSON.stringify(slugName)}`);
      context.reported.add('slugName');
    }
    return { name, slugName, icon, proxyUrl };
  }
}

/**
 * A check's or group's `privateLocations` as the service takes it: identifier strings. A slug is
 * sent as written; a `PrivateLocation` as its slug name (the service's checks name private
 * locations by slug); `PrivateLocation.fromId(id)` as its id, since its slug is not known here.
 * Anything else is an error at `propPath[index]`. Not an array: left to the schema's message.
 */
export function privateLocationIdentifiers(context: BuildContext, value: unknown, propPath: string): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((entry: unknown, index) => {
    const item = unwrapConstructRef(entry);
    if (typeof item === 'string') return item;
    if (isConstruct(item) && item.kind === 'private-location') return (item as unknown as PrivateLocation).props.slugName;
    if (isExternalRef(item) && item.kind === 'private-location') {
      return context.reference(item, { kind: 'private-location', name: 'a PrivateLocation', idType: 'string' }, `${propPath}[${index}]`, [propPath, index]);
    }
    context.error(
      `${propPath}[${index}]`,
      `"${propPath}[${index}]" must be a private location's slug name, a PrivateLocation or PrivateLocation.fromId(id), got ${isConstruct(item) ? item.describe() : JSON.stringify(item) ?? typeof item}`,
    );
    return '';
  });
}
