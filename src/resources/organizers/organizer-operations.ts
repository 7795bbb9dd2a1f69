import { bindOperations, bodyOf, queryOf } from "../../http/operation-types";
import type { Services } from "../../services";
import { linkedPostOperations, type LinkedPostInputs } from "../post-kernel/linked-post-operations";
import { serializeOrganizer } from "./organizer-serializer";
import { organizerStore, type OrganizerWrite } from "./organizer-store";

/** The organizer operations (docs/compatibility.md §6.1, §7.2), by id and by slug alike, on the linked-post kernel. */
export function organizerOperations(services: Services) {
  const inputs: LinkedPostInputs<OrganizerWrite> = {
    query: (req) => queryOf(req, "listOrganizers"),
    createBody: (req) => bodyOf(req, "createOrganizer"),
    updateBody: (req) => bodyOf(req, "updateOrganizer"),
  };
  return bindOperations(linkedPostOperations("organizer", organizerStore, serializeOrganizer, inputs, services), {
    listOrganizers: "list",
    createOrganizer: "create",
    getOrganizer: "get",
    getOrganizerBySlug: "get",
    deleteOrganizer: "remove",
    deleteOrganizerBySlug: "remove",
    updateOrganizer: "update",
    putOrganizer: "update",
    patchOrganizer: "update",
    updateOrganizerBySlug: "update",
    putOrganizerBySlug: "update",
    patchOrganizerBySlug: "update",
  });
}
