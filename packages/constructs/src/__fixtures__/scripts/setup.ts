export async function setup() {
  return 'ready';
}
await setup();
