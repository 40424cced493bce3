import { CheckGroupV2, Frequency } from 'checkly/constructs'
import { emailChannel, teamsChannel } from './alert-channels'

export const shopGroup = new CheckGroupV2('shop-group', {
  name: 'Shop',
  frequency: Frequency.EVERY_5M,
  locations: ['eu-west-1'],
  tags: ['shop'],
  alertChannels: [emailChannel, teamsChannel],
})
