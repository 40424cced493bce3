import { expect, test } from '@playwright/test';
import { STORE_URL, productUrl } from './helpers';

test('a visitor can put a product in the basket', async ({ request }) => {
  const product = await request.get(productUrl('tea-001'));
  expect(product.status()).toBe(200);

  const basket = await request.post(`${STORE_URL}/api/basket`, { data: { sku: 'tea-001', quantity: 1 } });
  expect(basket.status()).toBe(201);
});
