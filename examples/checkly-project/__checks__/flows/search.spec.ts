import { expect, test } from '@playwright/test'

const shop = process.env.SHOP_URL ?? 'https://danube-web.shop'

test('search finds a book', async ({ request }) => {
  const response = await request.get(`${shop}/api/search?q=haben`)
  expect(response.status()).toBe(200)
  expect(await response.json()).toHaveLength(1)
})
