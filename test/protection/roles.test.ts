// The capabilities of each role (docs/compatibility.md §8), capability by capability: a role that
// gains one may write what it should not, a role that loses one is locked out of its own items.
import { can, isRole, ROLES, type Role } from "../../src/auth/roles";
import { canReadItem } from "../../src/auth/visibility";
import type { Principal } from "../../src/auth/principal";

const TYPES = ["events", "venues", "organizers"] as const;
const EDITORS_POST_ACTIONS = [
  "edit",
  "delete",
  "publish",
  "edit_published",
  "delete_published",
  "edit_others",
  "delete_others",
  "read_private",
  "edit_private",
  "delete_private",
];
const AUTHORS_POST_ACTIONS = ["edit", "delete", "publish", "edit_published", "delete_published"];
const CONTRIBUTORS_POST_ACTIONS = ["edit", "delete"];
const OTHER_CAPABILITIES = ["manage_categories", "manage_tags", "unfiltered_html", "force_delete", "manage_webhooks"];

const postCapabilities = (actions: string[]) => TYPES.flatMap((type) => actions.map((action) => `${action}_${type}`));
const EVERY_CAPABILITY = [...postCapabilities(EDITORS_POST_ACTIONS), ...OTHER_CAPABILITIES, "read", "edit_posts"];

const EXPECTED: Record<Role, string[]> = {
  administrator: [
    ...postCapabilities(EDITORS_POST_ACTIONS),
    "manage_categories",
    "manage_tags",
    "unfiltered_html",
    "force_delete",
    "manage_webhooks",
  ],
  editor: [...postCapabilities(EDITORS_POST_ACTIONS), "manage_categories", "manage_tags", "unfiltered_html"],
  author: [...postCapabilities(AUTHORS_POST_ACTIONS), "manage_categories"],
  contributor: postCapabilities(CONTRIBUTORS_POST_ACTIONS),
  subscriber: [],
};

describe("roles", () => {
  it("are the five WordPress roles, and nothing else is one", () => {
    expect([...ROLES]).toEqual(["administrator", "editor", "author", "contributor", "subscriber"]);
    for (const role of ROLES) expect(isRole(role)).toBe(true);
    for (const other of ["Administrator", "admin", "", "super_admin", 1, null, undefined, ["editor"]])
      expect(isRole(other)).toBe(false);
  });

  it.each(ROLES)("%s has exactly its capabilities", (role) => {
    const held = EVERY_CAPABILITY.filter((capability) => can(role, capability));
    expect(held.sort()).toEqual([...EXPECTED[role]].sort());
  });
});

describe("who reads an item of each status", () => {
  const principal = (role: Role, userId = 7): Principal => ({ userId, login: `${role}-${userId}`, role });
  const item = (status: string, authorId = 7) => ({ status, authorId });

  it("published: anyone, anonymous too", () => {
    expect(canReadItem(null, "events", item("publish"))).toBe(true);
    for (const role of ROLES) expect(canReadItem(principal(role, 99), "venues", item("publish"))).toBe(true);
  });

  it("trashed: nobody, not even its author or an administrator", () => {
    expect(canReadItem(null, "events", item("trash"))).toBe(false);
    for (const role of ROLES) expect(canReadItem(principal(role), "events", item("trash"))).toBe(false);
  });

  it.each(["draft", "pending", "future"])("%s: its author (who may edit their own) and editors", (status) => {
    expect(canReadItem(null, "events", item(status))).toBe(false);
    const own = ROLES.filter((role) => canReadItem(principal(role), "events", item(status)));
    expect(own).toEqual(["administrator", "editor", "author", "contributor"]);
    const others = ROLES.filter((role) => canReadItem(principal(role, 8), "events", item(status)));
    expect(others).toEqual(["administrator", "editor"]);
  });

  it("private: its author and whoever reads private items", () => {
    expect(canReadItem(null, "organizers", item("private"))).toBe(false);
    const own = ROLES.filter((role) => canReadItem(principal(role), "organizers", item("private")));
    expect(own).toEqual(["administrator", "editor", "author", "contributor"]);
    const others = ROLES.filter((role) => canReadItem(principal(role, 8), "organizers", item("private")));
    expect(others).toEqual(["administrator", "editor"]);
  });
});
