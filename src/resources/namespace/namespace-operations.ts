import { sendPrepared } from "../../http/compression";
import { sendRepresentation } from "../../http/conditional";
import type { Operation, Operations } from "../../http/operation-types";
import { context } from "../../http/request-context";
import type { Language } from "../../i18n/languages";
import type { Documentation } from "../../openapi/documentation";
import { renderIndex, renderRestIndex, type IndexRoute } from "../../openapi/namespace-index";
import { NAMESPACE } from "../../openapi/spec";
import type { Services } from "../../services";

/** The namespace index and the documentation, both derived from the spec. */
export function namespaceOperations(
  services: Services,
  routes: (language: Language) => Map<string, IndexRoute>,
  documentation: Documentation,
): Operations<"getNamespaceIndex" | "getRestIndex" | "getApiDocumentation" | "headApiDocumentation"> {
  // The REST root the client used (language prefix included), where WordPress points `up`.
  const restRootUrl = (apiBase: string) => `${apiBase.slice(0, apiBase.length - NAMESPACE.length - 1)}/`;

  // HEAD runs it too: Express sends the headers and leaves the body out.
  const documentationPage: Operation = {
    async run(req, res) {
      const ctx = context(req);
      // JSON unless the client prefers HTML (a browser does).
      res.vary("Accept");
      if (req.accepts(["application/json", "text/html"]) === "text/html") {
        const page = documentation.htmlFor(ctx.language, ctx.apiBase);
        if (page === null) {
          services.logger.error("the HTML documentation has not been built: run npm run build:docs");
          throw new Error("HTML documentation missing");
        }
        await sendPrepared(res, page);
        return;
      }
      await sendPrepared(res, documentation.jsonFor(ctx.language, ctx.apiBase));
    },
  };

  return {
    getNamespaceIndex: {
      run(req, res) {
        const ctx = context(req);
        sendRepresentation(res, renderIndex(routes(ctx.language), ctx.apiBase, restRootUrl(ctx.apiBase)));
      },
    },
    getRestIndex: {
      run(req, res) {
        const ctx = context(req);
        const site = {
          language: ctx.language,
          siteUrl: ctx.siteUrl,
          siteTimezone: ctx.siteTimezone,
          restRootUrl: restRootUrl(ctx.apiBase),
          documentationUrl: `${ctx.apiBase}/doc`,
        };
        sendRepresentation(res, renderRestIndex(routes(ctx.language), ctx.apiBase, site));
      },
    },
    getApiDocumentation: documentationPage,
    headApiDocumentation: documentationPage,
  };
}
