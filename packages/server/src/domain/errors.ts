/**
 * Why the domain refused an operation, in its own words: the routes decide what that means on the
 * wire (400, 404, 409), so domain rules can be used by anything that is not an HTTP handler (the
 * scheduler, a data migration, a runner agent's reports) without dragging HTTP along.
 */
export type DomainRefusal = 'invalid' | 'not-found' | 'conflict';

export class DomainError extends Error {
  readonly refusal: DomainRefusal;
  /** The request fields at fault, for `invalid`. */
  readonly fields: readonly string[];

  constructor(refusal: DomainRefusal, message: string, fields: readonly string[] = []) {
    super(message);
    this.name = 'DomainError';
    this.refusal = refusal;
    this.fields = fields;
  }
}

/** Input the domain cannot accept, naming the fields at fault. */
export function invalid(message: string, fields: readonly string[] = []): DomainError {
  return new DomainError('invalid', message, fields);
}

/** An id the account does not have, whether it never existed or belongs to another tenant. */
export function notFound(what: string, id: string | number): DomainError {
  return new DomainError('not-found', `${what} ${id} not found`);
}

/** The operation contradicts what is stored (a group that still holds checks). */
export function conflict(message: string): DomainError {
  return new DomainError('conflict', message);
}
