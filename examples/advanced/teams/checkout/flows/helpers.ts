/** Shared by the checkout flows; bundled into the check's code with its entrypoint. */
/** `vigil test -e STORE_URL=https://preview.shop.acme.example` runs the flow against a preview. */
export const STORE_URL = process.env.STORE_URL ?? 'https://shop.acme.example';

export function productUrl(sku: string): string {
  return `${STORE_URL}/products/${encodeURIComponent(sku)}`;
}
