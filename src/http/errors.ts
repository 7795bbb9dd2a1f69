import { fillTemplate, type Language, type Localized } from "../i18n/languages";
import { detailMessage, type DeclaredDetailCode, type DetailCode } from "./detail-codes";

/**
 * Every error the API can answer with, declared once: its code (stable, never translated), HTTP
 * status and message template in each language. Templates take `{placeholders}`.
 */
export const ERRORS = {
  rest_no_route: {
    status: 404,
    message: {
      en: "No route was found matching the URL and request method.",
      "pt-br": "Nenhuma rota corresponde à URL e ao método da requisição.",
      es: "No se encontró ninguna ruta que coincida con la URL y el método de la solicitud.",
    },
  },
  rest_invalid_param: {
    status: 400,
    message: {
      en: "Invalid parameter(s): {params}",
      "pt-br": "Parâmetro(s) inválido(s): {params}",
      es: "Parámetro(s) no válido(s): {params}",
    },
  },
  rest_missing_callback_param: {
    status: 400,
    message: {
      en: "Missing parameter(s): {params}",
      "pt-br": "Parâmetro(s) ausente(s): {params}",
      es: "Falta(n) parámetro(s): {params}",
    },
  },
  rest_invalid_json: {
    status: 400,
    message: {
      en: "Invalid JSON body passed.",
      "pt-br": "O corpo JSON enviado é inválido.",
      es: "El cuerpo JSON enviado no es válido.",
    },
  },
  rest_callback_invalid: {
    status: 400,
    message: {
      en: "Invalid JSONP callback function.",
      "pt-br": "Função de callback JSONP inválida.",
      es: "Función de callback JSONP no válida.",
    },
  },
  rest_callback_disabled: {
    status: 400,
    message: {
      en: "JSONP support is disabled on this site.",
      "pt-br": "O suporte a JSONP está desativado neste site.",
      es: "La compatibilidad con JSONP está desactivada en este sitio.",
    },
  },
  rest_forbidden: {
    status: 403,
    message: {
      en: "Sorry, you are not allowed to do that.",
      "pt-br": "Desculpe, você não tem permissão para fazer isso.",
      es: "Lo siento, no tienes permiso para hacer eso.",
    },
  },
  rest_cross_site_write: {
    status: 403,
    message: {
      en: "A write sent by a page of another site without a CORS preflight is refused: send it from this site, or through CORS with your own Authorization header and a JSON body.",
      "pt-br":
        "Uma escrita enviada por uma página de outro site sem verificação prévia de CORS é recusada: envie-a deste site, ou por CORS com o seu próprio cabeçalho Authorization e um corpo JSON.",
      es: "Se rechaza una escritura enviada por una página de otro sitio sin verificación previa de CORS: envíela desde este sitio, o mediante CORS con su propia cabecera Authorization y un cuerpo JSON.",
    },
  },
  rest_payload_too_large: {
    status: 413,
    message: {
      en: "The request body is too large.",
      "pt-br": "O corpo da requisição é grande demais.",
      es: "El cuerpo de la solicitud es demasiado grande.",
    },
  },
  rest_unsupported_media_type: {
    status: 415,
    message: {
      en: "The request body must be JSON (Content-Type application/json) or form-encoded (application/x-www-form-urlencoded).",
      "pt-br":
        "O corpo da requisição deve ser JSON (Content-Type application/json) ou um formulário codificado (application/x-www-form-urlencoded).",
      es: "El cuerpo de la solicitud debe ser JSON (Content-Type application/json) o un formulario codificado (application/x-www-form-urlencoded).",
    },
  },
  rest_too_many_requests: {
    status: 429,
    message: {
      en: "Too many requests from this address; try again after the number of seconds in Retry-After.",
      "pt-br": "Requisições demais deste endereço; tente de novo após o número de segundos em Retry-After.",
      es: "Demasiadas solicitudes desde esta dirección; inténtalo de nuevo tras los segundos indicados en Retry-After.",
    },
  },
  rest_request_timeout: {
    status: 408,
    message: {
      en: "The request was not received in time.",
      "pt-br": "A requisição não foi recebida a tempo.",
      es: "La solicitud no se recibió a tiempo.",
    },
  },
  rest_bad_request: {
    status: 400,
    message: {
      en: "The request is not valid HTTP.",
      "pt-br": "A requisição não é HTTP válido.",
      es: "La solicitud no es HTTP válido.",
    },
  },
  rest_headers_too_large: {
    status: 431,
    message: {
      en: "The request headers are too large.",
      "pt-br": "Os cabeçalhos da requisição são grandes demais.",
      es: "Las cabeceras de la solicitud son demasiado grandes.",
    },
  },
  rest_not_ready: {
    status: 503,
    message: {
      en: "The service is not ready: it is still starting, or it cannot reach its database.",
      "pt-br": "O serviço não está pronto: ainda está iniciando, ou não consegue acessar seu banco de dados.",
      es: "El servicio no está listo: todavía está arrancando, o no puede acceder a su base de datos.",
    },
  },
  rest_service_unavailable: {
    status: 503,
    message: {
      en: "The service cannot reach its database just now; try again after the number of seconds in Retry-After.",
      "pt-br":
        "O serviço não consegue acessar seu banco de dados agora; tente de novo após o número de segundos em Retry-After.",
      es: "El servicio no puede acceder a su base de datos en este momento; inténtalo de nuevo tras los segundos indicados en Retry-After.",
    },
  },
  rest_internal_error: {
    status: 500,
    message: {
      en: "The server could not complete the request.",
      "pt-br": "O servidor não conseguiu concluir a requisição.",
      es: "El servidor no pudo completar la solicitud.",
    },
  },
  empty_term_name: {
    status: 400,
    message: {
      en: "A name is required for this term.",
      "pt-br": "Um nome é necessário para este termo.",
      es: "Se requiere un nombre para este término.",
    },
  },
  term_exists: {
    status: 400,
    message: {
      en: "A term with the name provided already exists.",
      "pt-br": "Já existe um termo com esse nome.",
      es: "Ya existe un término con ese nombre.",
    },
  },
  "rest-category-not-found": {
    status: 404,
    message: {
      en: "Category with ID {id} does not exist.",
      "pt-br": "A categoria com ID {id} não existe.",
      es: "La categoría con ID {id} no existe.",
    },
  },
  "rest-tag-not-found": {
    status: 404,
    message: {
      en: "Tag with ID {id} does not exist.",
      "pt-br": "A tag com ID {id} não existe.",
      es: "La etiqueta con ID {id} no existe.",
    },
  },
  rest_webhook_not_found: {
    status: 404,
    message: {
      en: "Webhook subscription with ID {id} does not exist.",
      "pt-br": "A assinatura de webhook com ID {id} não existe.",
      es: "La suscripción de webhook con ID {id} no existe.",
    },
  },
  rest_import_not_found: {
    status: 404,
    message: {
      en: "Import source with ID {id} does not exist.",
      "pt-br": "A fonte de importação com ID {id} não existe.",
      es: "La fuente de importación con ID {id} no existe.",
    },
  },
  rest_import_running: {
    status: 409,
    message: {
      en: "A run of import source {id} is under way.",
      "pt-br": "Uma execução da fonte de importação {id} está em andamento.",
      es: "Una ejecución de la fuente de importación {id} está en curso.",
    },
  },
  "rest-venue-not-found": {
    status: 404,
    message: {
      en: "Venue with {ref} does not exist.",
      "pt-br": "O local com {ref} não existe.",
      es: "El lugar con {ref} no existe.",
    },
  },
  "venue-not-accessible": {
    status: 403,
    message: {
      en: "The requested venue is not accessible",
      "pt-br": "O local solicitado não está acessível",
      es: "El lugar solicitado no está accesible",
    },
  },
  "venue-is-in-trash": {
    status: 410,
    message: {
      en: "The venue is already trashed",
      "pt-br": "O local já está na lixeira",
      es: "El lugar ya está en la papelera",
    },
  },
  "venue-archive-page-not-found": {
    status: 404,
    message: {
      en: "The requested venue archive page does not exist",
      "pt-br": "A página solicitada da lista de locais não existe",
      es: "La página solicitada de la lista de lugares no existe",
    },
  },
  "rest-organizer-not-found": {
    status: 404,
    message: {
      en: "Organizer with {ref} does not exist.",
      "pt-br": "O organizador com {ref} não existe.",
      es: "El organizador con {ref} no existe.",
    },
  },
  "organizer-not-accessible": {
    status: 403,
    message: {
      en: "The requested organizer is not accessible",
      "pt-br": "O organizador solicitado não está acessível",
      es: "El organizador solicitado no está accesible",
    },
  },
  "organizer-is-in-trash": {
    status: 410,
    message: {
      en: "The organizer is already trashed",
      "pt-br": "O organizador já está na lixeira",
      es: "El organizador ya está en la papelera",
    },
  },
  "organizer-archive-page-not-found": {
    status: 404,
    message: {
      en: "The requested organizer archive page does not exist",
      "pt-br": "A página solicitada da lista de organizadores não existe",
      es: "La página solicitada de la lista de organizadores no existe",
    },
  },
  "rest-event-not-found": {
    status: 404,
    message: {
      en: "Event with {ref} does not exist.",
      "pt-br": "O evento com {ref} não existe.",
      es: "El evento con {ref} no existe.",
    },
  },
  "event-no-longer-available": {
    status: 403,
    message: {
      en: "This event is no longer available",
      "pt-br": "Este evento não está mais disponível",
      es: "Este evento ya no está disponible",
    },
  },
  "event-not-accessible": {
    status: 403,
    message: {
      en: "The requested event is not accessible",
      "pt-br": "O evento solicitado não está acessível",
      es: "El evento solicitado no está accesible",
    },
  },
  "event-is-in-trash": {
    status: 410,
    message: {
      en: "The event is already trashed",
      "pt-br": "O evento já está na lixeira",
      es: "El evento ya está en la papelera",
    },
  },
  rest_sync_token_expired: {
    status: 410,
    message: {
      en: "The sync token has expired or was not made for this list: list it again from the first page.",
      "pt-br":
        "O token de sincronização expirou ou não foi gerado para esta lista: liste-a de novo a partir da primeira página.",
      es: "El token de sincronización ha caducado o no se generó para esta lista: vuelve a listarla desde la primera página.",
    },
  },
  "event-archive-page-not-found": {
    status: 404,
    message: {
      en: "The requested event archive page does not exist",
      "pt-br": "A página solicitada da lista de eventos não existe",
      es: "La página solicitada de la lista de eventos no existe",
    },
  },
  rest_precondition_failed: {
    status: 412,
    message: {
      en: "The item has changed since the version the request names (If-Match), or does not exist.",
      "pt-br": "O item mudou desde a versão que a requisição indica (If-Match), ou não existe.",
      es: "El elemento ha cambiado desde la versión que indica la solicitud (If-Match), o no existe.",
    },
  },
  "event-password-protected": {
    status: 403,
    message: {
      en: "The requested event is not accessible without a password",
      "pt-br": "O evento solicitado não está acessível sem uma senha",
      es: "El evento solicitado no está accesible sin una contraseña",
    },
  },
} as const satisfies Record<string, { status: number; message: Localized }>;

export type ErrorCode = keyof typeof ERRORS;

/** Messages of `data.params` entries, per parameter. */
export const PARAM_MESSAGES = {
  invalid: {
    en: "Invalid parameter.",
    "pt-br": "Parâmetro inválido.",
    es: "Parámetro no válido.",
  },
  notFound: {
    en: "No such item.",
    "pt-br": "Item inexistente.",
    es: "No existe tal elemento.",
  },
} as const satisfies Record<string, Localized>;

export type ParamMessage = keyof typeof PARAM_MESSAGES;

/** One invalid parameter: why it is invalid, as a code and a message. */
export interface ParamProblem {
  message: ParamMessage;
  detailCode: DetailCode;
  detail: Localized | string;
}

/**
 * A domain error: thrown anywhere, turned into the error envelope by the error handler.
 * `data` goes into the envelope's `data` beside `status`.
 */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    readonly values: Record<string, string | number> = {},
    readonly data: Record<string, unknown> = {},
    status?: number,
    /** Response headers that go with the error (Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(code);
    this.status = status ?? ERRORS[code].status;
  }

  localizedMessage(language: Language): string {
    return fillTemplate(ERRORS[this.code].message[language], this.values);
  }
}

/** 400 `rest_invalid_param` for parameters that passed the schema but fail a domain rule. */
export class InvalidParamsError extends Error {
  constructor(readonly problems: Record<string, ParamProblem>) {
    super("invalid params");
  }
}

/** Collects the problems of several parameters, to report them all in one 400. */
export class ParamProblems {
  constructor(
    private readonly problems: Record<string, ParamProblem> = {},
    private readonly field?: string,
  ) {}

  add(param: string, detailCode: DeclaredDetailCode, message: ParamProblem["message"] = "invalid"): void {
    this.problems[this.field === undefined ? param : `${this.field}[${param}]`] ??= {
      message,
      detailCode,
      detail: detailMessage(detailCode),
    };
  }

  any(): boolean {
    return Object.keys(this.problems).length > 0;
  }

  /** The problems of the data in a field (a venue to create, in an event's `venue`), named as a form names them: `venue[date]`. */
  within(field: string): ParamProblems {
    return new ParamProblems(this.problems, this.field === undefined ? field : `${this.field}[${field}]`);
  }

  throwIfAny(): void {
    if (Object.keys(this.problems).length > 0) throw new InvalidParamsError(this.problems);
  }
}

export function invalidParam(
  param: string,
  detailCode: DeclaredDetailCode,
  message: ParamMessage = "invalid",
): InvalidParamsError {
  return new InvalidParamsError({ [param]: { message, detailCode, detail: detailMessage(detailCode) } });
}
