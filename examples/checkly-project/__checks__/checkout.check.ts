import * as path from 'path'
import { MultiStepCheck } from 'checkly/constructs'
import { shopGroup } from './groups.check'

new MultiStepCheck('checkout-flow', {
  name: 'Checkout flow',
  group: shopGroup,
  code: {
    entrypoint: path.join(__dirname, 'checkout.spec.ts'),
  },
})
