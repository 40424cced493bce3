/**
 * The dashboard rows of `ENDPOINTS` (`/v1/dashboards`), kept here so endpoints.ts stays readable;
 * they are part of that one table like every other row. A create or update whose `customUrl` or
 * `customDomain` another dashboard of the service already has answers 409, as the real document says.
 */
import { z } from 'zod';
import { Dashboard, DashboardCreate, DashboardGetQuery, DashboardIdParams, DashboardUpdate } from './dashboards.js';
import { PageQuery } from './paging.js';

const TAKEN = 'customUrl or customDomain already taken by another dashboard';

export const DASHBOARD_ENDPOINTS = {
  'dashboards.list': {
    method: 'GET', path: '/v1/dashboards', query: PageQuery, response: z.array(Dashboard), status: 200, list: true,
    summary: 'List dashboards',
  },
  'dashboards.get': {
    method: 'GET', path: '/v1/dashboards/{dashboardId}', params: DashboardIdParams, query: DashboardGetQuery, response: Dashboard,
    status: 200, summary: 'Get a dashboard (by customUrl or customDomain with `type`)',
  },
  'dashboards.create': {
    method: 'POST', path: '/v1/dashboards', body: DashboardCreate, response: Dashboard, status: 201, conflict: TAKEN,
    summary: 'Create a dashboard (stored and served through the API; not rendered as a web page)',
  },
  'dashboards.update': {
    method: 'PUT', path: '/v1/dashboards/{dashboardId}', params: DashboardIdParams, body: DashboardUpdate, response: Dashboard,
    status: 200, conflict: TAKEN, summary: 'Update a dashboard (merge)',
  },
  'dashboards.delete': {
    method: 'DELETE', path: '/v1/dashboards/{dashboardId}', params: DashboardIdParams, status: 204,
    summary: 'Delete a dashboard',
  },
} as const;
