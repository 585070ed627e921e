/**
 * Estimated prices per million tokens, by model family. An estimate only: gateways, discounts
 * and price changes make the bill differ, so every figure computed here is labelled as such.
 * Unknown models get no price (null) rather than a guess.
 */
import type { TokenUsage } from './types.js';

/** Price of a model family. */
export interface ModelPrice {
  /** US dollars per million input tokens. */
  input: number;
  output: number;
}

/** Prompt-cache reads cost a tenth of input; 5-minute cache writes a quarter more than input. */
export const CACHE_READ_FACTOR = 0.1;
export const CACHE_WRITE_FACTOR = 1.25;

/** First match wins: most specific patterns first. */
const PRICES: { pattern: RegExp; price: ModelPrice }[] = [
  { pattern: /opus-4-(0|1)\b|opus-4-20|opus-4-1-/, price: { input: 15, output: 75 } },
  { pattern: /opus/, price: { input: 5, output: 25 } },
  { pattern: /sonnet/, price: { input: 3, output: 15 } },
  { pattern: /haiku-3-5|3-5-haiku/, price: { input: 0.8, output: 4 } },
  { pattern: /haiku-3|3-haiku/, price: { input: 0.25, output: 1.25 } },
  { pattern: /haiku/, price: { input: 1, output: 5 } },
];

/** The label shown next to every cost figure computed here. */
export const PRICE_TABLE_NOTE = 'estimate from the public per-token price of the model family';

/** The price of a model id, or null when its family is not in the table. */
export function priceOf(model: string): ModelPrice | null {
  const id = model.toLowerCase();
  return PRICES.find((p) => p.pattern.test(id))?.price ?? null;
}

/** Estimated US dollars for one call, or null when the model's price is unknown. */
export function estimateCostUsd(model: string, usage: TokenUsage): number | null {
  const price = priceOf(model);
  if (!price) return null;
  const dollars =
    usage.inputTokens * price.input +
    usage.cacheReadTokens * price.input * CACHE_READ_FACTOR +
    usage.cacheCreationTokens * price.input * CACHE_WRITE_FACTOR +
    usage.outputTokens * price.output;
  return dollars / 1_000_000;
}
