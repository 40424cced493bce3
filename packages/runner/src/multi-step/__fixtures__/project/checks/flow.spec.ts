import { expect, test } from '@playwright/test';

test('health flow', async ({ request }) => {
  await test.step('read health', async () => {
    const response = await request.get(`${process.env.BASE_URL}/health`);
    console.log('health answered', response.status());
    const body = (await response.json()) as { ok: boolean };
    expect(body.ok).toBe(process.env.EXPECT_OK === 'true');
  });
  console.log('visible variables', Object.keys(process.env).filter((key) => key.startsWith('VIGIL_') || key === 'BASE_URL').sort().join(','));
});
