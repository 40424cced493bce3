import { MaintenanceWindow } from 'checkly/constructs'

new MaintenanceWindow('sunday-deploys', {
  name: 'Sunday deploys',
  tags: ['shop'],
  startsAt: new Date('2030-01-06T22:00:00.000Z'),
  endsAt: new Date('2030-01-07T00:00:00.000Z'),
  repeatUnit: 'WEEK',
  repeatInterval: 1,
})
