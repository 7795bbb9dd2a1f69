// Who may list, edit, delete and publish events, venues and organizers (docs/compatibility.md §7.4,
// §8), role by role, own items and others', status by status.
import type { Principal } from "../../src/auth/principal";
import {
  canDeleteItem,
  canEditItem,
  DEFAULT_LIST_STATUSES,
  editableCondition,
  listableConditions,
  mayWriteItem,
  scaledStatus,
  statusesToList,
} from "../../src/auth/post-permissions";
import { InvalidParamsError } from "../../src/http/errors";
import { ROLES, type Role } from "../../src/auth/roles";
import { POST_STATUSES } from "../../src/auth/visibility";

const ME = 7;
const someone = (role: Role): Principal => ({ userId: ME, login: role, role });
const mine = (status: string) => ({ status, authorId: ME });
const theirs = (status: string) => ({ status, authorId: ME + 1 });

/** The roles for which `check` holds. */
const rolesWhere = (check: (principal: Principal) => boolean) => ROLES.filter((role) => check(someone(role)));

describe("the statuses a list shows", () => {
  it("are everything but the trash for those who edit the type, else only published", () => {
    expect(DEFAULT_LIST_STATUSES).toEqual(["publish", "future", "draft", "pending", "private"]);
    expect(statusesToList(null, "events", undefined)).toEqual(["publish"]);
    expect(statusesToList(someone("subscriber"), "events", undefined)).toEqual(["publish"]);
    for (const role of ["administrator", "editor", "author", "contributor"] as const)
      expect(statusesToList(someone(role), "venues", undefined)).toEqual(DEFAULT_LIST_STATUSES);
  });

  it("are the ones asked for, once each, when the caller edits the type", () => {
    expect(statusesToList(someone("contributor"), "events", ["draft", "draft", "trash"])).toEqual(["draft", "trash"]);
  });

  it("may be asked for as publish alone by anyone; anything else is a 400 naming status", () => {
    expect(statusesToList(null, "organizers", ["publish", "publish"])).toEqual(["publish"]);
    expect(statusesToList(someone("subscriber"), "organizers", ["publish"])).toEqual(["publish"]);
    for (const asked of [["draft"], ["publish", "draft"], ["private"], []] as const) {
      for (const caller of [null, someone("subscriber")]) {
        const refusal = (() => {
          try {
            statusesToList(caller, "events", [...asked]);
          } catch (error) {
            return error;
          }
          return undefined;
        })();
        expect(refusal).toBeInstanceOf(InvalidParamsError);
        expect((refusal as InvalidParamsError).problems.status?.detailCode).toBe("rest_status_forbidden");
      }
    }
  });
});

describe("the conditions of a list", () => {
  it("show published items to anyone; nothing else to anonymous callers", () => {
    expect(listableConditions(null, "events", [...POST_STATUSES])).toEqual([{ status: "publish" }]);
  });

  it("show others' items of a status to those who may, their own to those who may only that", () => {
    const conditions = (role: Role) => listableConditions(someone(role), "events", [...POST_STATUSES]);
    const every = POST_STATUSES.map((status) => ({ status }));
    expect(conditions("administrator")).toEqual(every);
    expect(conditions("editor")).toEqual(every);
    expect(conditions("author")).toEqual([
      { status: "publish" },
      { status: "future", authorId: ME },
      { status: "draft", authorId: ME },
      { status: "pending", authorId: ME },
      { status: "private", authorId: ME },
      { status: "trash", authorId: ME },
    ]);
    expect(conditions("contributor")).toEqual(conditions("author"));
    expect(conditions("subscriber")).toEqual([{ status: "publish" }]);
  });
});

describe("editing and deleting an item", () => {
  it.each(["edit", "delete"] as const)("%s: own unpublished items, for every role but subscribers", (action) => {
    for (const status of ["draft", "pending"])
      expect(rolesWhere((p) => mayWriteItem(p, "events", mine(status), action))).toEqual([
        "administrator",
        "editor",
        "author",
        "contributor",
      ]);
  });

  it.each(["edit", "delete"] as const)("%s: own published or scheduled items, not for contributors", (action) => {
    for (const status of ["publish", "future"])
      expect(rolesWhere((p) => mayWriteItem(p, "venues", mine(status), action))).toEqual([
        "administrator",
        "editor",
        "author",
      ]);
  });

  it.each(["edit", "delete"] as const)("%s: others' items of any status, editors and administrators", (action) => {
    for (const status of POST_STATUSES)
      expect(rolesWhere((p) => mayWriteItem(p, "organizers", theirs(status), action))).toEqual([
        "administrator",
        "editor",
      ]);
  });

  it("own private items: their author when they may edit published ones", () => {
    expect(rolesWhere((p) => canEditItem(p, "events", mine("private")))).toEqual([
      "administrator",
      "editor",
      "author",
      "contributor",
    ]);
    expect(rolesWhere((p) => canDeleteItem(p, "events", mine("private")))).toEqual([
      "administrator",
      "editor",
      "author",
      "contributor",
    ]);
  });
});

describe("the items a query may edit", () => {
  it("are none, all, or the caller's own (unpublished only for those who may not edit published ones)", () => {
    expect(editableCondition(null, "events")).toEqual({ none: true });
    expect(editableCondition(someone("subscriber"), "events")).toEqual({ none: true });
    expect(editableCondition(someone("administrator"), "events")).toEqual({ all: true });
    expect(editableCondition(someone("editor"), "venues")).toEqual({ all: true });
    expect(editableCondition(someone("author"), "events")).toEqual({ authorId: ME, unpublishedOnly: false });
    expect(editableCondition(someone("contributor"), "events")).toEqual({ authorId: ME, unpublishedOnly: true });
  });
});

describe("the status a write gives", () => {
  it("is what those who may publish ask for, publish when they ask for none on a new item", () => {
    for (const role of ["administrator", "editor", "author"] as const) {
      for (const status of POST_STATUSES) expect(scaledStatus(someone(role), "events", status)).toBe(status);
      expect(scaledStatus(someone(role), "events", undefined)).toBe("publish");
      expect(scaledStatus(someone(role), "events", undefined, "draft")).toBe("draft");
    }
  });

  it("is pending instead of publish, future or private for contributors, draft for a new item without one", () => {
    const contributor = someone("contributor");
    expect(POST_STATUSES.map((status) => scaledStatus(contributor, "venues", status))).toEqual([
      "pending",
      "pending",
      "draft",
      "pending",
      "pending",
      "trash",
    ]);
    expect(scaledStatus(contributor, "venues", undefined)).toBe("draft");
    expect(scaledStatus(contributor, "venues", undefined, "pending")).toBe("pending");
  });
});
