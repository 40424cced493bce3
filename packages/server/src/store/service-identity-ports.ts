/**
 * What names the service and its deprecated group triggers, as a storage port (part of ports.ts, with
 * an engine per database and the contract suite contract/service-identity.test.ts).
 *
 * The service id is made once per database and kept in it, so clients bind their state to the service
 * rather than to the address it listens on, and every replica on one database answers the same id.
 * A check group's trigger (`GET /v1/triggers/check-groups/{groupId}`) is made on its first read and
 * stable after: of replicas reading it first at the same moment, one makes it and all answer that one.
 */
import { positive, StoreInputError, text } from './port-rules.js';

/** A group's trigger as the API answers it; `id` is counted per account. */
export type GroupTriggerDocument = Record<string, unknown> & { readonly id: number; readonly groupId: number };

export interface ServiceIdentity {
  /**
   * The database's service id: the one stored, or `made` stored now when there is none yet. Of replicas
   * asking first at once, one stores its id and all resolve to that one.
   */
  serviceId(made: string): Promise<string>;
  /**
   * The account's trigger of the group: the stored one, or the document `build` makes around the
   * account's next trigger id, stored now. Of replicas asking first at once, one stores it (and counts
   * the id) and all resolve to the stored one.
   */
  groupTrigger(accountId: string, groupId: number, build: (id: number) => GroupTriggerDocument): Promise<GroupTriggerDocument>;
}

export function checkServiceId(id: string): void {
  text('service id', id, 255);
}

export function checkTriggerKey(accountId: string, groupId: number): void {
  text('accountId', accountId);
  positive('groupId', groupId);
}

/** Refuses a built trigger the engines could not key, or one of another group. */
export function checkTrigger(groupId: number, doc: GroupTriggerDocument): void {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new StoreInputError('a group trigger must be an object');
  positive('trigger id', doc.id);
  if (doc.groupId !== groupId) throw new StoreInputError(`a trigger of group ${groupId} must name it as its groupId`);
}
