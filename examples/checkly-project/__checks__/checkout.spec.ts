import { expect, test } from '@playwright/test'

const shop = process.env.SHOP_URL ?? 'https://danube-web.shop'

test('a book goes into the cart', async ({ request }) => {
  const books = await request.get(`${shop}/api/books`)
  expect(books.status()).toBe(200)
  const [book] = await books.json()

  const cart = await request.post(`${shop}/api/cart`, { data: { id: book.id } })
  expect(cart.status()).toBe(201)
})
