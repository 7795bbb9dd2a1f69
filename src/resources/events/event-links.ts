import type { PostType } from "../../auth/roles";
import { canReadItem } from "../../auth/visibility";
import type { Database } from "../../db/database";
import type { Tx } from "../../db/transaction";
import type { ParamProblems } from "../../http/errors";
import type { Schemas } from "../../http/operation-types";
import { lockRows, type OwnedRow } from "../post-kernel/post-repository";
import type { PostWriteContext } from "../post-kernel/post-fields";
import type { LinkedItemWriters } from "../../services";
import type { EventRecord, LinkIds, LinkKind } from "./event-record";
import { lockTermsToLink } from "../terms/term-repository";

/**
 * What an event links to (its venue, organizers, categories and tags): the forms a write may name
 * them in, read into ids; the checks that they exist and may be linked; the link rows.
 */

type EventLinksInput = Pick<Schemas["EventFields"], LinkKind>;

/** A venue or organizer as a write names it: an existing one's id, or the data of one to find or create. */
type LinkedRef<D> = { id: number } | { data: D };

const DIGITS = /^\d+$/;

function isIdObject(value: object): value is { id: number } {
  return typeof (value as { id?: unknown }).id === "number";
}

/** `8`, `"8"`, `{id: 8}` or `{venue: "New place", ...}`; `0`, `"0"` and `""` stand for none. */
function linkedRef<D extends object>(value: number | string | D | { id: number }): LinkedRef<D>[] {
  if (typeof value === "number") return value === 0 ? [] : [{ id: value }];
  if (typeof value === "string") return DIGITS.test(value) && Number(value) !== 0 ? [{ id: Number(value) }] : [];
  return isIdObject(value) ? [{ id: value.id }] : [{ data: value }];
}

function venueRefs(value: Schemas["WriteVenueRef"]): LinkedRef<Schemas["CreateVenueRequest"]>[] {
  return Array.isArray(value) ? value.map((id) => ({ id })) : linkedRef(value);
}

/** A list of any of the forms, or ids comma-separated in one string (`"1,2"`). */
function organizerRefs(value: Schemas["WriteOrganizerRefs"]): LinkedRef<Schemas["CreateOrganizerRequest"]>[] {
  if (Array.isArray(value)) return value.flatMap((item) => linkedRef(item));
  if (typeof value === "string")
    return value.split(",").flatMap((part) => linkedRef<Schemas["CreateOrganizerRequest"]>(part.trim()));
  return linkedRef(value);
}

/** Ids as numbers, slugs and names as text: from a list, one comma-separated string, or an object's values (PHP's keyed arrays). */
function termRefs(value: Schemas["WriteTermRefs"]): Array<number | string> {
  const items: Array<number | string> =
    typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : Object.values(value);
  return items
    .map((item) => (typeof item === "string" ? item.trim() : item))
    .filter((item) => item !== "")
    .map((item) => (typeof item === "string" && DIGITS.test(item) ? Number(item) : item));
}

/** The ids of linked items, finding or creating those given as data (`reuseOrCreate`), in order, once each. */
async function linkedIds<D>(
  refs: LinkedRef<D>[],
  reuseOrCreate: (data: D, problems: ParamProblems) => Promise<number | null>,
  problems: ParamProblems,
): Promise<number[]> {
  const ids: number[] = [];
  for (const [position, ref] of refs.entries()) {
    const id =
      "id" in ref
        ? ref.id
        : await reuseOrCreate(ref.data, refs.length > 1 ? problems.within(String(position)) : problems);
    if (id !== null) ids.push(id);
  }
  return [...new Set(ids)];
}

/**
 * The ids a write links to, per kind it gives, in its transaction: venues and organizers given as
 * data found or created (as the writer's own, by the rules of their create), terms given by slug or
 * name found or created. Before the event is locked: creating terms takes their taxonomy's turn,
 * which term writes take before they lock events.
 */
export async function linkIdsOf(
  db: Database,
  tx: Tx,
  ctx: PostWriteContext,
  input: EventLinksInput,
  problems: ParamProblems,
  linked: LinkedItemWriters,
): Promise<LinkIds> {
  const ids: LinkIds = {};
  const as = (type: PostType): PostWriteContext => ({ ...ctx, type });
  if (input.venue !== undefined) {
    ids.venue = await linkedIds(
      venueRefs(input.venue),
      (data, at) => linked.venue(db, tx, as("venues"), data, at),
      problems.within("venue"),
    );
  }
  if (input.organizer !== undefined) {
    ids.organizer = await linkedIds(
      organizerRefs(input.organizer),
      (data, at) => linked.organizer(db, tx, as("organizers"), data, at),
      problems.within("organizer"),
    );
  }
  for (const [param, taxonomy] of [
    ["categories", "category"],
    ["tags", "tag"],
  ] as const) {
    const value = input[param];
    if (value !== undefined) ids[param] = await linked.terms(db, tx, ctx, taxonomy, param, termRefs(value), problems);
  }
  return ids;
}

const ids = (links: Array<{ id: number }>) => links.map((link) => link.id);

/** The ids an event links to now, per kind. */
function currentLinks(event: EventRecord | null): Record<LinkKind, number[]> {
  const terms = event?.terms.map((link) => link.term) ?? [];
  return {
    venue: ids(event?.venues.map((link) => link.venue) ?? []),
    organizer: ids(event?.organizers.map((link) => link.organizer) ?? []),
    categories: ids(terms.filter((term) => term.taxonomy === "category")),
    tags: ids(terms.filter((term) => term.taxonomy === "tag")),
  };
}

const sameList = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((id, i) => id === b[i]);

/** The link lists a write replaces: those it gives that differ from the current ones. */
export function linkChanges(wanted: LinkIds, event: EventRecord | null): LinkIds {
  const current = currentLinks(event);
  const changes: LinkIds = {};
  for (const kind of ["venue", "organizer", "categories", "tags"] as const) {
    const list = wanted[kind];
    if (list !== undefined && !sameList(list, current[kind])) changes[kind] = list;
  }
  return changes;
}

const PROBLEM_OF_PARAM = (problems: ParamProblems, param: string) =>
  problems.add(param, "rest_linked_item_not_found", "notFound");

/**
 * Checks that the venues, organizers and parent a write links to exist and that the writer may see
 * them (venues and organizers outside the trash), each unknown or hidden one a problem of its
 * parameter (a contributor cannot link another's draft venue), and holds them until the write
 * commits, so that none can go meanwhile: a venue being trashed or deleted makes the link a 400,
 * not a broken link or a foreign-key failure. Done before the event's row is written, which
 * references the parent.
 */
export async function checkItemLinks(
  db: Database,
  tx: Tx,
  ctx: PostWriteContext,
  changes: LinkIds,
  event: EventRecord | null,
  parent: number | null | undefined,
  problems: ParamProblems,
): Promise<void> {
  const readable = (type: PostType, rows: OwnedRow[]) =>
    new Set(rows.filter((row) => canReadItem(ctx.principal, type, row)).map((row) => row.id));
  for (const [param, table, type] of [
    ["venue", "Venue", "venues"],
    ["organizer", "Organizer", "organizers"],
  ] as const) {
    const wanted = changes[param];
    if (
      wanted &&
      readable(type, await lockRows(db, tx, table, wanted, "share", { outsideTrash: true })).size !==
        new Set(wanted).size
    )
      PROBLEM_OF_PARAM(problems, param);
  }
  if (parent && parent !== event?.parentId) {
    const found =
      parent === event?.id ? new Set() : readable("events", await lockRows(db, tx, "Event", [parent], "key share"));
    if (found.size === 0) PROBLEM_OF_PARAM(problems, "post_parent");
  }
}

/**
 * Checks that the terms a write links exist in their taxonomy, and keeps every term whose count
 * the write may change (those it links and those it unlinks) from being deleted before it commits.
 */
export async function checkTermLinks(
  db: Database,
  tx: Tx,
  changes: LinkIds,
  event: EventRecord | null,
  problems: ParamProblems,
): Promise<void> {
  const current = currentLinks(event);
  const touched = [
    ...(changes.categories ?? []),
    ...(changes.tags ?? []),
    ...(changes.categories ? current.categories : []),
    ...(changes.tags ? current.tags : []),
  ];
  if (touched.length === 0) return;
  const taxonomies = await lockTermsToLink(db, tx, [...new Set(touched)]);
  for (const [param, taxonomy] of [
    ["categories", "category"],
    ["tags", "tag"],
  ] as const) {
    const wanted = changes[param];
    if (wanted && wanted.some((id) => taxonomies.get(id) !== taxonomy)) PROBLEM_OF_PARAM(problems, param);
  }
}
