export {};

const response = await fetch('https://example.com/orders');
if (!response.ok) throw new Error('orders failed');
