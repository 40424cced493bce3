/** Shared by the checkout flows; bundled into the check's code with its entrypoint. */
export const STORE_URL = 'https://shop.acme.example';

export function productUrl(sku: string): string {
  return `${STORE_URL}/products/${encodeURIComponent(sku)}`;
}
