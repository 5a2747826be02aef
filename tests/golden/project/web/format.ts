// Money formatting shared by every page.
export function formatPrice(cents: number, currency: string): string {
  const whole = Math.floor(cents / 100);
  const rest = String(cents % 100).padStart(2, "0");
  return `${whole}.${rest} ${currency}`;
}
