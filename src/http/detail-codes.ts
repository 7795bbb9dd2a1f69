import type { Localized } from "../i18n/languages";

interface DetailCodeSpec {
  /** What the code means (the document lists the codes; the README says where they come from). */
  meaning: string;
  /**
   * The message sent beside the code, in each language; absent where the message carries values
   * (a limit, a type) and is made with them where the problem is found (validation-messages.ts,
   * input-guard.ts).
   */
  message?: Localized;
}

/**
 * Every code a `data.details` entry of an error can carry: what exactly was wrong with one
 * parameter of a `400` (or, under `rest_internal_error`, with a response). Declared once, here:
 * the code of every problem a handler or the validator reports is one of these (the type says so),
 * and the document lists the same codes (`ErrorDetailCode`; a test compares the two), with the
 * message each sends in every language.
 */
export const DETAIL_CODES = {
  // From the request validator: the value does not fit the parameter's schema.
  rest_invalid_type: { meaning: "not of the parameter's type (a word where a number goes)" },
  rest_out_of_range: { meaning: "a number below the minimum or above the maximum" },
  rest_too_short: { meaning: "a text shorter than allowed (an empty name)" },
  rest_too_long: { meaning: "a text longer than allowed" },
  rest_too_few_items: { meaning: "a list with fewer items than allowed" },
  rest_too_many_items: { meaning: "a list with more items than allowed" },
  rest_not_in_enum: { meaning: "not one of the values the parameter takes" },
  rest_invalid_format: { meaning: "not in the parameter's format (an e-mail address, a URL, a pattern)" },
  rest_invalid_value: { meaning: "a value the parameter's schema refuses otherwise" },
  rest_missing_field: { meaning: "an object without a field it needs (a venue given without its name)" },
  rest_empty_value: { meaning: "blank where a value is needed" },
  rest_invalid_param: { meaning: "anything else the schema refuses, described in English by the validator" },
  // From the input guard, before any schema: text and nesting no database should get.
  rest_invalid_text: { meaning: "text that is not valid Unicode (a lone surrogate) or holds a NUL" },
  rest_too_deep: { meaning: "a value nested deeper than allowed" },
  // From the handlers: values that fit the schema but not the data.
  rest_invalid_date: {
    meaning: "a date that cannot be read, or out of the years 1 to 9999",
    message: {
      en: "Not a date this service understands.",
      "pt-br": "Não é uma data que este serviço entenda.",
      es: "No es una fecha que este servicio entienda.",
    },
  },
  rest_invalid_timezone: {
    meaning: "neither an IANA time zone nor an offset some place keeps all year",
    message: {
      en: "Must be an IANA time zone, such as America/New_York or UTC, or an offset some place keeps all year, such as UTC+2.",
      "pt-br":
        "Deve ser um fuso horário IANA, como America/Sao_Paulo ou UTC, ou uma diferença que algum lugar mantém o ano todo, como UTC-3.",
      es: "Debe ser una zona horaria IANA, como Europe/Madrid o UTC, o una diferencia que algún lugar mantiene todo el año, como UTC+2.",
    },
  },
  rest_end_before_start: {
    meaning: "an end date before the start date",
    message: {
      en: "Must not be before start_date.",
      "pt-br": "Não pode ser anterior a start_date.",
      es: "No puede ser anterior a start_date.",
    },
  },
  rest_event_too_long: {
    meaning: "an event that lasts more than 50 years (its length is kept in a 32-bit count of seconds)",
    message: {
      en: "An event may last at most 50 years.",
      "pt-br": "Um evento pode durar no máximo 50 anos.",
      es: "Un evento puede durar como máximo 50 años.",
    },
  },
  rest_invalid_term_name: {
    meaning: "a category or tag name too long for its slug",
    message: {
      en: "A term's name must be at most 200 characters long.",
      "pt-br": "O nome de um termo deve ter no máximo 200 caracteres.",
      es: "El nombre de un término debe tener como máximo 200 caracteres.",
    },
  },
  rest_invalid_recurrence: {
    meaning: "a recurrence this service cannot read or expand, or one on an occurrence of a series",
    message: {
      en: "Must be a rule as {rrule, rdate, exdate}, RFC 5545 lines (RRULE, RDATE, EXDATE) or the recurrence add-on's rules ({type, on, end_type, end, end-count}), with an RRULE of FREQ DAILY, WEEKLY, MONTHLY or YEARLY and INTERVAL, BYDAY, BYMONTHDAY, BYMONTH, BYSETPOS, WKST and COUNT or UNTIL only, dates as YYYY-MM-DD HH:MM; not on an occurrence of a series.",
      "pt-br":
        "Deve ser uma regra como {rrule, rdate, exdate}, linhas RFC 5545 (RRULE, RDATE, EXDATE) ou as regras do add-on de recorrência ({type, on, end_type, end, end-count}), com uma RRULE de FREQ DAILY, WEEKLY, MONTHLY ou YEARLY e apenas INTERVAL, BYDAY, BYMONTHDAY, BYMONTH, BYSETPOS, WKST e COUNT ou UNTIL, datas como AAAA-MM-DD HH:MM; não numa ocorrência de uma série.",
      es: "Debe ser una regla como {rrule, rdate, exdate}, líneas RFC 5545 (RRULE, RDATE, EXDATE) o las reglas del complemento de recurrencia ({type, on, end_type, end, end-count}), con una RRULE de FREQ DAILY, WEEKLY, MONTHLY o YEARLY y solo INTERVAL, BYDAY, BYMONTHDAY, BYMONTH, BYSETPOS, WKST y COUNT o UNTIL, fechas como AAAA-MM-DD HH:MM; no en una ocurrencia de una serie.",
    },
  },
  rest_recurrence_too_costly: {
    meaning:
      "a recurrence rule whose expansion takes more than 2,000,000 steps (one that matches rarely, or never, over a long walk from the series' start)",
    message: {
      en: "The rule takes too long to expand: from the series' start it gives dates too rarely, or never. Start the series later, or use a rule that matches more often.",
      "pt-br":
        "A regra demora demais para ser expandida: a partir do início da série ela gera datas raramente demais, ou nunca. Comece a série mais tarde, ou use uma regra que ocorra com mais frequência.",
      es: "La regla tarda demasiado en expandirse: desde el inicio de la serie genera fechas con muy poca frecuencia, o nunca. Empiece la serie más tarde, o use una regla que ocurra más a menudo.",
    },
  },
  rest_too_many_occurrences: {
    meaning: "a recurrence rule giving more occurrences up to the horizon than a series may have (730)",
    message: {
      en: "The rule gives more than 730 occurrences up to the horizon; use a larger INTERVAL, COUNT or UNTIL.",
      "pt-br": "A regra gera mais de 730 ocorrências até o horizonte; use INTERVAL maior, COUNT ou UNTIL.",
      es: "La regla genera más de 730 ocurrencias hasta el horizonte; use un INTERVAL mayor, COUNT o UNTIL.",
    },
  },
  rest_too_many_dates: {
    meaning: "a recurrence listing more than 366 extra dates (RDATE) or 730 excluded dates (EXDATE), in any form",
    message: {
      en: "Lists more than 366 extra dates (RDATE) or more than 730 excluded dates (EXDATE).",
      "pt-br": "Lista mais de 366 datas extras (RDATE) ou mais de 730 datas excluídas (EXDATE).",
      es: "Enumera más de 366 fechas adicionales (RDATE) o más de 730 fechas excluidas (EXDATE).",
    },
  },
  rest_invalid_webhook_target: {
    meaning: "a webhook URL that is not http(s), carries credentials, or names an address notifications may not go to",
    message: {
      en: "Must be an http or https URL without credentials, not naming a link-local, multicast or reserved address (nor a loopback or private one, unless the operator allows them).",
      "pt-br":
        "Deve ser uma URL http ou https sem credenciais, que não indique um endereço link-local, multicast ou reservado (nem um de loopback ou privado, a menos que o operador os permita).",
      es: "Debe ser una URL http o https sin credenciales, que no indique una dirección link-local, multicast o reservada (ni una de loopback o privada, salvo que el operador las permita).",
    },
  },
  rest_invalid_import_source: {
    meaning:
      "an import source URL that is not http(s) or webcal, carries credentials, or names an address feeds may not be fetched from",
    message: {
      en: "Must be an http, https or webcal URL without credentials, not naming a link-local, multicast or reserved address (nor a loopback or private one, unless the operator allows them).",
      "pt-br":
        "Deve ser uma URL http, https ou webcal sem credenciais, que não indique um endereço link-local, multicast ou reservado (nem um de loopback ou privado, a menos que o operador os permita).",
      es: "Debe ser una URL http, https o webcal sin credenciales, que no indique una dirección link-local, multicast o reservada (ni una de loopback o privada, salvo que el operador las permita).",
    },
  },
  rest_invalid_parent: {
    meaning: "a category parent that is the category itself or one of its descendants",
    message: {
      en: "Must be an existing category other than this one and its descendants.",
      "pt-br": "Deve ser uma categoria existente, diferente desta e de suas descendentes.",
      es: "Debe ser una categoría existente distinta de esta y de sus descendientes.",
    },
  },
  rest_missing_callback_param: {
    meaning: "a parameter that another one needs is missing (geoloc_lng without geoloc_lat)",
    message: {
      en: "Required when geoloc is true.",
      "pt-br": "Obrigatório quando geoloc é true.",
      es: "Obligatorio cuando geoloc es true.",
    },
  },
  rest_status_forbidden: {
    meaning: "a status the caller may not list or give",
    message: {
      en: "Only published items can be listed without the right to edit them.",
      "pt-br": "Sem permissão de edição, só é possível listar itens publicados.",
      es: "Sin permiso de edición solo se pueden listar elementos publicados.",
    },
  },
  rest_event_not_found: {
    meaning: "no event the caller may see has this id",
    message: {
      en: "Must be the id of an existing event that you may see.",
      "pt-br": "Deve ser o id de um evento existente que você possa ver.",
      es: "Debe ser el id de un evento existente que puedas ver.",
    },
  },
  rest_venue_not_found: {
    meaning: "no venue the caller may see has this id",
    message: {
      en: "Every id must be of an existing venue that you may see.",
      "pt-br": "Cada id deve ser de um local existente que você possa ver.",
      es: "Cada id debe ser de un lugar existente que puedas ver.",
    },
  },
  rest_organizer_not_found: {
    meaning: "no organizer the caller may see has this id",
    message: {
      en: "Every id must be of an existing organizer that you may see.",
      "pt-br": "Cada id deve ser de um organizador existente que você possa ver.",
      es: "Cada id debe ser de un organizador existente que puedas ver.",
    },
  },
  rest_term_not_found: {
    meaning: "no category or tag has this id or slug",
    message: {
      en: "Every item must be the id or slug of an existing term of this taxonomy.",
      "pt-br": "Cada item deve ser o id ou o slug de um termo existente desta taxonomia.",
      es: "Cada elemento debe ser el id o el slug de un término existente de esta taxonomía.",
    },
  },
  rest_user_not_found: {
    meaning: "no user has this id",
    message: {
      en: "Must be the id of an existing user.",
      "pt-br": "Deve ser o id de um usuário existente.",
      es: "Debe ser el id de un usuario existente.",
    },
  },
  rest_linked_item_not_found: {
    meaning: "a venue, organizer, category or tag to link that does not exist or may not be linked",
    message: {
      en: "Every id must be of an existing item of this kind that you may see (not in the trash).",
      "pt-br": "Cada id deve ser de um item existente deste tipo que você possa ver (fora da lixeira).",
      es: "Cada id debe ser de un elemento existente de este tipo que puedas ver (fuera de la papelera).",
    },
  },
  rest_sync_filters_differ: {
    meaning: "filters given beside a sync token that are not those of the list that made it",
    message: {
      en: "A sync token keeps the filters of the list that made it: send it alone, or with those same filters.",
      "pt-br":
        "Um token de sincronização guarda os filtros da lista que o gerou: envie-o sozinho ou com esses mesmos filtros.",
      es: "Un token de sincronización conserva los filtros de la lista que lo generó: envíalo solo o con esos mismos filtros.",
    },
  },
  rest_sync_not_paged: {
    meaning: "a page number beside a sync token (its answers are paged by their own tokens)",
    message: {
      en: "Changes are paged by their tokens: follow next_rest_url or send next_sync_token, without page.",
      "pt-br": "As mudanças são paginadas pelos tokens: siga next_rest_url ou envie next_sync_token, sem page.",
      es: "Los cambios se paginan con sus tokens: sigue next_rest_url o envía next_sync_token, sin page.",
    },
  },
  // Only under `rest_internal_error`, with response validation on (the tests): the service
  // answered something its document does not allow.
  rest_invalid_response: { meaning: "a response that does not match the document" },
} as const satisfies Record<string, DetailCodeSpec>;

export type DetailCode = keyof typeof DETAIL_CODES;

/** The codes whose message is declared here, which a handler reports by code alone. */
export type DeclaredDetailCode = {
  [C in DetailCode]: (typeof DETAIL_CODES)[C] extends { message: Localized } ? C : never;
}[DetailCode];

export function detailMessage(code: DeclaredDetailCode): Localized {
  return DETAIL_CODES[code].message;
}
