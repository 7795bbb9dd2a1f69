/** The languages the calendar is offered in, in the order the documentation lists them. */
export const LANGUAGES = ["en", "pt-br", "es"] as const;

export type Language = (typeof LANGUAGES)[number];

export function isLanguage(value: unknown): value is Language {
  return typeof value === "string" && (LANGUAGES as readonly string[]).includes(value);
}

/** A text in every language. */
export type Localized = Record<Language, string>;

/** What `make` gives for each language, made when first asked for, then kept. */
export function perLanguage<T>(make: (language: Language) => T): (language: Language) => T {
  const made = new Map<Language, T>();
  return (language) => {
    if (!made.has(language)) made.set(language, make(language));
    return made.get(language)!;
  };
}

/** Replaces `{name}` placeholders of a message template. */
export function fillTemplate(template: string, values: Record<string, string | number> = {}): string {
  return template.replace(/\{(\w+)\}/g, (match, name: string) => (name in values ? String(values[name]) : match));
}
