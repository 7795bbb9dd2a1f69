import type { Schemas } from "../../http/operation-types";

/**
 * An event's cost, as the original shows it (docs/compatibility.md §3.1, §3.5): free text or a list of
 * texts ("$23", "20$", "10 - 20 €", "Free"), from which come the currency symbol and its
 * position, every amount (sorted, as numeric strings, "Free" counting as 0), and a display text:
 * a single text as written (a lone 0 as "Free"); a list as "min – max" (0 shown as "Free").
 */

const AMOUNT = /\d+(?:[.,]\d+)*/g;
const FREE = /\bfree\b/i;

/** The stored form: a string, or a JSON list of strings; a number given is its decimal text. */
export function storedCost(input: string | number | Array<string | number> | null | undefined): string | null {
  if (input === null || input === undefined) return null;
  const text = (item: string | number) => (typeof item === "number" ? String(item) : item.trim());
  if (Array.isArray(input)) {
    const items = input.map(text).filter((item) => item !== "");
    return items.length > 0 ? JSON.stringify(items) : null;
  }
  return text(input) === "" ? null : text(input);
}

function costTexts(stored: string | null): string[] {
  if (stored === null) return [];
  if (stored.startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(stored);
      if (Array.isArray(parsed)) return parsed.map(String);
    } catch {
      // Not a list after all: a text that starts with "[".
    }
  }
  return [stored];
}

/**
 * "1,234.50" and "1.234,50" are both 1234.5; a lone separator followed by exactly three digits
 * ("1,000") groups thousands, otherwise it is the decimal separator ("12,5").
 */
function amountOf(text: string): number {
  const separators = text.replace(/\d/g, "");
  if (separators === "") return Number(text);
  const last = Math.max(text.lastIndexOf("."), text.lastIndexOf(","));
  const decimals = text.slice(last + 1);
  const single = new Set(separators).size === 1;
  if (single && (separators.length > 1 || decimals.length === 3)) return Number(text.replace(/[.,]/g, ""));
  return Number(`${text.slice(0, last).replace(/[.,]/g, "")}.${decimals}`);
}

function symbolAround(text: string): { symbol: string; position: "prefix" | "postfix" | "" } {
  const first = text.search(/\d/);
  if (first < 0) return { symbol: "", position: "" };
  const before = text
    .slice(0, first)
    .replace(/[\s\-–—~]+$/, "")
    .trim();
  const beforeSymbol = /([^\s\d\-–—~]+)$/.exec(before)?.[1];
  if (beforeSymbol && !FREE.test(beforeSymbol)) return { symbol: beforeSymbol, position: "prefix" };
  const lastDigit = text.search(/\d[^\d]*$/);
  const after = text.slice(lastDigit + 1).trim();
  const afterSymbol = /^([^\s\d\-–—~.,]+)/.exec(after)?.[1];
  if (afterSymbol && !FREE.test(afterSymbol)) return { symbol: afterSymbol, position: "postfix" };
  return { symbol: "", position: "" };
}

function formatAmount(value: number): string {
  return String(Number(value.toFixed(2)));
}

export interface EventCost {
  cost: string;
  cost_details: Schemas["CostDetails"];
}

export function describeCost(stored: string | null): EventCost {
  const texts = costTexts(stored);
  const values: number[] = [];
  let symbol = "";
  let position: "prefix" | "postfix" | "" = "";
  for (const text of texts) {
    if (FREE.test(text)) values.push(0);
    for (const match of text.match(AMOUNT) ?? []) values.push(amountOf(match));
    if (symbol === "") ({ symbol, position } = symbolAround(text));
  }
  values.sort((a, b) => a - b);
  const strings = [...new Set(values.map(formatAmount))];
  const withSymbol = (value: string) =>
    value === "0" ? "Free" : position === "prefix" ? `${symbol}${value}` : `${value}${symbol}`;
  let cost: string;
  if (texts.length === 1) cost = strings.length === 1 && strings[0] === "0" && !FREE.test(texts[0]) ? "Free" : texts[0];
  else if (strings.length === 1) cost = withSymbol(strings[0]);
  else if (strings.length > 1) cost = `${withSymbol(strings[0])} – ${withSymbol(strings[strings.length - 1])}`;
  else cost = texts.join(", ");
  return {
    cost,
    cost_details: { currency_symbol: symbol, currency_code: "", currency_position: position, values: strings },
  };
}
