/**
 * Every error the service answers with has one body:
 * `{statusCode, error, message, validation?}`, `validation` only on 400s that name fields.
 */
import type { DomainError, DomainRefusal } from '../domain/errors.js';

export type ValidationSource = 'payload' | 'query' | 'params';

export interface ValidationDetail {
  readonly source: ValidationSource;
  readonly keys: readonly string[];
}

export interface ErrorBody {
  readonly statusCode: number;
  readonly error: string;
  readonly message: string;
  readonly validation?: ValidationDetail;
}

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function reasonPhrase(status: number): string {
  return REASONS[status] ?? 'Error';
}

/** Thrown anywhere inside a handler; the app turns it into the JSON error response. */
export class HttpError extends Error {
  readonly status: number;
  readonly validation: ValidationDetail | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, message: string, options: { validation?: ValidationDetail; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.validation = options.validation;
    this.headers = options.headers ?? {};
  }

  toBody(): ErrorBody {
    return {
      statusCode: this.status,
      error: reasonPhrase(this.status),
      message: this.message,
      ...(this.validation ? { validation: this.validation } : {}),
    };
  }
}

const STATUS_OF_REFUSAL: Readonly<Record<DomainRefusal, number>> = { invalid: 400, 'not-found': 404, conflict: 409 };

/** A domain refusal as the API answers it; the fields at fault are the request body's. */
export function httpErrorOf(error: DomainError): HttpError {
  const status = STATUS_OF_REFUSAL[error.refusal];
  return new HttpError(status, error.message, error.fields.length > 0 ? { validation: { source: 'payload', keys: error.fields } } : {});
}

export function badRequest(message: string, validation?: ValidationDetail): HttpError {
  return new HttpError(400, message, validation ? { validation } : {});
}

/** 404 for an id the account does not have, whether it never existed or belongs to another tenant. */
export function notFound(what: string, id: string | number): HttpError {
  return new HttpError(404, `${what} ${id} not found`);
}

export function conflict(message: string): HttpError {
  return new HttpError(409, message);
}
