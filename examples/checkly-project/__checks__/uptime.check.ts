import { HeartbeatMonitor, TcpAssertionBuilder, TcpMonitor, UrlAssertionBuilder, UrlMonitor } from 'checkly/constructs'
import { emailChannel } from './alert-channels'

/* The shop's host and port; the environment can point them at a staging copy. */
const host = process.env.SHOP_HOST ?? 'danube-web.shop'
const port = Number(process.env.SHOP_PORT ?? 443)

new TcpMonitor('shop-tcp', {
  name: 'Shop port open',
  request: {
    hostname: host,
    port,
    assertions: [TcpAssertionBuilder.responseTime().lessThan(2000)],
  },
})

new UrlMonitor('shop-home', {
  name: 'Shop home page',
  alertChannels: [emailChannel],
  request: {
    url: process.env.SHOP_HOME_URL ?? 'https://danube-web.shop/',
    assertions: [UrlAssertionBuilder.statusCode().equals(200)],
  },
})

new HeartbeatMonitor('nightly-export', {
  name: 'Nightly catalogue export',
  period: 1,
  periodUnit: 'days',
  grace: 30,
  graceUnit: 'minutes',
  alertChannels: [emailChannel],
})
