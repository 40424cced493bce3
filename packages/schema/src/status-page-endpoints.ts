/**
 * The status-page rows of `ENDPOINTS` (`/v1/status-pages`, `/v1/status-pages/{statusPageId}`), kept
 * here so endpoints.ts stays readable; they are part of that one table like every other row. A
 * create or update whose `url` or `customDomain` another page of the service already has answers
 * 409: the document says nothing of it, but a page is reached by either name alone.
 */
import { StatusPage, StatusPageCreate, StatusPagePage, StatusPagesListQuery, StatusPageUpdate } from './status-page.js';
import { StatusPageIdParams } from './paging.js';

const TAKEN = 'url or customDomain already taken by another status page';

export const STATUS_PAGE_ENDPOINTS = {
  'statusPages.list': {
    method: 'GET', path: '/v1/status-pages', query: StatusPagesListQuery, response: StatusPagePage, status: 200, cursor: true,
    summary: 'List status pages (paged by cursor, as the real document has it)',
  },
  'statusPages.get': {
    method: 'GET', path: '/v1/status-pages/{statusPageId}', params: StatusPageIdParams, response: StatusPage, status: 200,
    summary: 'Get a status page with its cards and services',
  },
  'statusPages.create': {
    method: 'POST', path: '/v1/status-pages', body: StatusPageCreate, response: StatusPage, status: 201, conflict: TAKEN,
    summary: 'Create a status page (stored and served through the API; not rendered as a web page)',
  },
  'statusPages.update': {
    method: 'PUT', path: '/v1/status-pages/{statusPageId}', params: StatusPageIdParams, body: StatusPageUpdate, response: StatusPage,
    status: 200, conflict: TAKEN, summary: 'Update a status page (name, url and cards required; other fields merge)',
  },
  'statusPages.delete': {
    method: 'DELETE', path: '/v1/status-pages/{statusPageId}', params: StatusPageIdParams, status: 204,
    summary: 'Delete a status page and its subscriptions',
  },
} as const;
