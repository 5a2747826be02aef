// HTTP handlers for the shop's web front end.
import { formatPrice } from "./format";

export interface PriceResponse {
  sku: string;
  display: string;
}

export function priceHandler(sku: string, cents: number): PriceResponse {
  return { sku, display: formatPrice(cents, "EUR") };
}
