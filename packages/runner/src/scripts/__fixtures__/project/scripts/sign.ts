export function requireToken(value: string | undefined): string {
  if (!value) {
    throw new Error('TOKEN is not set');
  }
  return value;
}
