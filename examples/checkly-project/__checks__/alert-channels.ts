import { EmailAlertChannel, MSTeamsAlertChannel } from 'checkly/constructs'

export const emailChannel = new EmailAlertChannel('email-channel-1', {
  address: 'alerts@acme.example',
  sendDegraded: true,
})

/* A webhook-based channel: sent to the service as a WEBHOOK with webhookType WEBHOOK_MSTEAMS. */
export const teamsChannel = new MSTeamsAlertChannel('teams-channel-1', {
  name: 'Shop on-call (Teams)',
  url: 'https://acme.webhook.office.com/webhookb2/shop-on-call',
})
