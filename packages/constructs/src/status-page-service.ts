import { StatusPageServiceCreate } from '@vigil/schema';
import type { z } from 'zod';
import { Construct, type ConstructProps } from './construct.js';
import { externalRef, uuidIdProblem, type ExternalRef } from './ref.js';
import type { PropKeys } from './unknown-props.js';

export interface StatusPageServiceProps extends ConstructProps {
  /** Name of the service as shown on status pages and in incidents. */
  name: string;
}

const STATUS_PAGE_SERVICE_PROP_KEYS: PropKeys<StatusPageServiceProps> = { protect: true, name: true };

/** A status-page service; checks open incidents on it through `triggerIncident`. */
export class StatusPageService extends Construct {
  readonly props: StatusPageServiceProps;

  /**
   * @param logicalId unique (per kind) name of the service in this project
   * @param props the service's name
   */
  constructor(logicalId: string, props: StatusPageServiceProps) {
    super('status-page-service', logicalId, props);
    this.props = props;
  }

  /**
   * Refers to a status-page service that exists on the service but is not managed by this project.
   * @param id the service's id on the monitoring service, a UUID
   */
  static fromId(id: string): ExternalRef<'status-page-service', string> {
    return externalRef('status-page-service', id, uuidIdProblem('StatusPageService.fromId', id));
  }

  protected payloadSchema(): z.ZodType {
    return StatusPageServiceCreate;
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return STATUS_PAGE_SERVICE_PROP_KEYS;
  }

  protected buildPayload(): Record<string, unknown> {
    return { name: this.props.name };
  }
}

/** A status-page service construct, or a reference to one Vigil does not manage. */
export type StatusPageServiceReference = StatusPageService | ExternalRef<'status-page-service', string>;
