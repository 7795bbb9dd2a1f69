import type { LinkedPostResource } from "../posts/linked-post-handlers";
import { serializeOrganizer } from "./organizer-serializer";
import { organizerStore, type OrganizerInput, type OrganizerRecord } from "./organizer-store";
import type { Schemas } from "../../http/operation-types";

export const ORGANIZERS: LinkedPostResource<OrganizerRecord, OrganizerInput, Schemas["Organizer"]> = {
  type: "organizers",
  collectionPath: "/organizers",
  collectionKey: "organizers",
  codes: {
    notFound: "rest-organizer-not-found",
    notAccessible: "organizer-not-accessible",
    inTrash: "organizer-is-in-trash",
    archivePageNotFound: "organizer-archive-page-not-found",
  },
  store: organizerStore,
  serialize: serializeOrganizer,
  // The write body's fields are the store's input fields (the spec validated them).
  input: (body) => body as OrganizerInput,
};
