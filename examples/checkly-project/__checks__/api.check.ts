import { ApiCheck, AssertionBuilder } from 'checkly/constructs'
import { shopGroup } from './groups.check'

new ApiCheck('books-api', {
  name: 'Books API',
  group: shopGroup,
  degradedResponseTime: 5000,
  maxResponseTime: 10000,
  request: {
    // `vigil test -e SHOP_URL=…` (or the group's or account's variable in Checkly) picks the shop.
    url: '{{SHOP_URL}}/api/books',
    method: 'GET',
    followRedirects: true,
    skipSSL: false,
    assertions: [
      AssertionBuilder.statusCode().equals(200),
      AssertionBuilder.jsonBody('$[0].id').isNotNull(),
    ],
  },
})
