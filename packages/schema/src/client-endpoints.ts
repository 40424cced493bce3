/**
 * Endpoints of the real service that Vigil's own client does not need but other clients of the
 * same API call (the Checkly CLI's read commands: sign-in, `checks list|get|stats`). They are part
 * of `ENDPOINTS` like every other row; they live here to keep endpoints.ts readable.
 */
import { z } from 'zod';
import { Account, CurrentUser } from './accounts.js';
import { BatchAnalyticsItem, BatchAnalyticsQuery, BatchAnalyticsRequest } from './batch-analytics.js';
import { CheckResultIdParams, CheckResultPage, CheckResultsV2Query } from './check-result-pages.js';
import { CheckResult } from './check-results.js';
import type { EndpointDef } from './endpoints.js';
import { ErrorGroup } from './error-groups.js';
import { IncidentPage, IncidentsListQuery } from './incident-pages.js';
import { Incident, IncidentUpdate } from './status-pages.js';
import { AccountIdParams, CheckIdParams, IncidentIdParams, StringIdParams } from './paging.js';
import { Runtime } from './runtimes.js';

export const CLIENT_ENDPOINTS = {
  'accounts.next.list': {
    method: 'GET', path: '/next/accounts', response: z.array(Account), status: 200,
    summary: 'List the accounts of the API key (the path the Checkly CLI signs in with)',
  },
  'accounts.next.get': {
    method: 'GET', path: '/next/accounts/{accountId}', params: AccountIdParams, response: Account, status: 200,
    summary: 'Get an account (the path the Checkly CLI signs in with)',
  },
  'users.next.me': {
    method: 'GET', path: '/next/users/me', response: CurrentUser, status: 200,
    summary: 'Who the API key acts as (the Checkly CLI\'s whoami)',
  },
  'runtimes.list': {
    method: 'GET', path: '/v1/runtimes', response: z.array(Runtime), status: 200,
    summary: 'List the runtimes',
  },
  'checkResults.listV2': {
    method: 'GET', path: '/v2/check-results/{checkId}', params: CheckIdParams, query: CheckResultsV2Query,
    response: CheckResultPage, status: 200,
    summary: "A check's results, newest first, paged by cursor",
  },
  'checkResults.get': {
    method: 'GET', path: '/v1/check-results/{checkId}/{checkResultId}', params: CheckResultIdParams,
    response: CheckResult, status: 200,
    summary: 'Get one check result',
  },
  'errorGroups.get': {
    method: 'GET', path: '/v1/error-groups/{id}', params: StringIdParams, response: ErrorGroup, status: 200,
    summary: 'Get an error group',
  },
  'analytics.batch': {
    method: 'POST', path: '/v1/analytics/checks', query: BatchAnalyticsQuery, body: BatchAnalyticsRequest,
    response: z.array(BatchAnalyticsItem), status: 200,
    summary: 'Headline analytics of up to 100 checks',
  },
  'incidents.list': {
    method: 'GET', path: '/v1/status-pages/incidents', query: IncidentsListQuery, response: IncidentPage, status: 200,
    summary: 'The latest incidents first, paged by cursor',
  },
  'incidents.patch': {
    method: 'PATCH', path: '/v1/status-pages/incidents/{incidentId}', params: IncidentIdParams, body: IncidentUpdate,
    response: Incident, status: 200,
    summary: 'Update an incident (the fields sent; what the Checkly CLI sends to change the severity)',
  },
} as const satisfies Record<string, EndpointDef>;
