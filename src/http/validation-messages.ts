import type { Localized } from "../i18n/languages";
import type { DetailCode } from "./detail-codes";

/**
 * The request validator (Ajv through express-openapi-validator) words its findings in English.
 * These rules turn the common ones into a stable detail code and a message in every language;
 * anything else keeps the validator's English text under `rest_invalid_param`.
 */
interface Rule {
  pattern: RegExp;
  code: DetailCode;
  message: (m: RegExpMatchArray) => Localized;
}

const TYPE_NAMES: Record<string, Localized> = {
  integer: { en: "an integer", "pt-br": "um número inteiro", es: "un número entero" },
  number: { en: "a number", "pt-br": "um número", es: "un número" },
  string: { en: "a string", "pt-br": "um texto", es: "un texto" },
  boolean: { en: "true or false", "pt-br": "true ou false", es: "true o false" },
  array: { en: "a list", "pt-br": "uma lista", es: "una lista" },
  object: { en: "an object", "pt-br": "um objeto", es: "un objeto" },
  null: { en: "null", "pt-br": "null", es: "null" },
};

function typeName(types: string, language: keyof Localized): string {
  return types
    .split(",")
    .map((t) => TYPE_NAMES[t.trim()]?.[language] ?? t.trim())
    .join(" / ");
}

const RULES: Rule[] = [
  {
    pattern: /^must be ([a-z,]+)$/,
    code: "rest_invalid_type",
    message: (m) => ({
      en: `Must be ${typeName(m[1], "en")}.`,
      "pt-br": `Deve ser ${typeName(m[1], "pt-br")}.`,
      es: `Debe ser ${typeName(m[1], "es")}.`,
    }),
  },
  {
    pattern: /^must be (>=|<=|>|<) (-?[\d.e+]+)$/,
    code: "rest_out_of_range",
    message: (m) => {
      const words: Record<string, Localized> = {
        ">=": { en: "at least", "pt-br": "no mínimo", es: "como mínimo" },
        "<=": { en: "at most", "pt-br": "no máximo", es: "como máximo" },
        ">": { en: "greater than", "pt-br": "maior que", es: "mayor que" },
        "<": { en: "less than", "pt-br": "menor que", es: "menor que" },
      };
      const w = words[m[1]];
      return {
        en: `Must be ${w.en} ${m[2]}.`,
        "pt-br": `Deve ser ${w["pt-br"]} ${m[2]}.`,
        es: `Debe ser ${w.es} ${m[2]}.`,
      };
    },
  },
  {
    pattern: /^must NOT have fewer than (\d+) characters$/,
    code: "rest_too_short",
    message: (m) =>
      m[1] === "1"
        ? { en: "Must not be empty.", "pt-br": "Não pode ser vazio.", es: "No puede estar vacío." }
        : {
            en: `Must have at least ${m[1]} characters.`,
            "pt-br": `Deve ter pelo menos ${m[1]} caracteres.`,
            es: `Debe tener al menos ${m[1]} caracteres.`,
          },
  },
  {
    pattern: /^must NOT have more than (\d+) characters$/,
    code: "rest_too_long",
    message: (m) => ({
      en: `Must have at most ${m[1]} characters.`,
      "pt-br": `Deve ter no máximo ${m[1]} caracteres.`,
      es: `Debe tener como máximo ${m[1]} caracteres.`,
    }),
  },
  {
    pattern: /^must NOT have fewer than (\d+) items$/,
    code: "rest_too_few_items",
    message: (m) => ({
      en: `Must have at least ${m[1]} item(s).`,
      "pt-br": `Deve ter pelo menos ${m[1]} item(ns).`,
      es: `Debe tener al menos ${m[1]} elemento(s).`,
    }),
  },
  {
    pattern: /^must NOT have more than (\d+) items$/,
    code: "rest_too_many_items",
    message: (m) => ({
      en: `Must have at most ${m[1]} items.`,
      "pt-br": `Deve ter no máximo ${m[1]} itens.`,
      es: `Debe tener como máximo ${m[1]} elementos.`,
    }),
  },
  {
    pattern: /^must be equal to one of the allowed values:? ?(.*)$/,
    code: "rest_not_in_enum",
    message: (m) =>
      m[1]
        ? {
            en: `Must be one of: ${m[1]}.`,
            "pt-br": `Deve ser um destes: ${m[1]}.`,
            es: `Debe ser uno de: ${m[1]}.`,
          }
        : { en: "Not an allowed value.", "pt-br": "Valor não permitido.", es: "Valor no permitido." },
  },
  {
    pattern: /^must match format "([\w-]+)"$/,
    code: "rest_invalid_format",
    message: (m) => ({
      en: `Must be a valid ${m[1]}.`,
      "pt-br": `Deve ser um ${m[1]} válido.`,
      es: `Debe ser un ${m[1]} válido.`,
    }),
  },
  {
    pattern: /^must match pattern /,
    code: "rest_invalid_format",
    message: () => ({
      en: "Has an invalid format.",
      "pt-br": "Tem um formato inválido.",
      es: "Tiene un formato no válido.",
    }),
  },
  {
    pattern: /^must be equal to constant$/,
    code: "rest_invalid_value",
    message: () => ({
      en: "Has an invalid value.",
      "pt-br": "Tem um valor inválido.",
      es: "Tiene un valor no válido.",
    }),
  },
  {
    pattern: /^must have required property '([^']+)'$/,
    code: "rest_missing_field",
    message: (m) => ({
      en: `Must have the field ${m[1]}.`,
      "pt-br": `Deve ter o campo ${m[1]}.`,
      es: `Debe tener el campo ${m[1]}.`,
    }),
  },
  {
    pattern: /^Empty value found/,
    code: "rest_empty_value",
    message: () => ({ en: "Must not be empty.", "pt-br": "Não pode ser vazio.", es: "No puede estar vacío." }),
  },
  {
    pattern: /must be url encoded|reserved characters/,
    code: "rest_invalid_format",
    message: () => ({
      en: "Must be URL-encoded.",
      "pt-br": "Deve estar codificado para URL.",
      es: "Debe estar codificado para URL.",
    }),
  },
];

export function describeValidationMessage(message: string): { code: DetailCode; detail: Localized | string } {
  for (const rule of RULES) {
    const match = message.match(rule.pattern);
    if (match) return { code: rule.code, detail: rule.message(match) };
  }
  return { code: "rest_invalid_param", detail: message };
}
