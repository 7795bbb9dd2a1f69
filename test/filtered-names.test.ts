// Names that markup filtering empties (issue 27): an author's `<img src=x>` as a venue, organizer
// or event name is stored as WordPress stores it, a blank title with the item's id as its slug;
// as a category or tag name it is refused (400 empty_term_name). Never a 500, in JSON, form and
// inline forms.
import { createUser } from "../src/resources/users/user-admin";
import { fixedClock } from "./support/events";
import { startTestServer, type RawResponse, type TestServer } from "./support/test-server";

let server: TestServer;
let author: Record<string, string>;
beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_PER_MINUTE: "0" }, { clock: fixedClock });
  author = {
    Authorization: `Bearer ${(await createUser(server.db, { login: "filtered-author", role: "author" })).api_key}`,
  };
});
afterAll(() => server.close());

const root = "/calendar/events/v1";
const json = (method: string, path: string, body: unknown) =>
  server.raw(method, `${root}${path}`, { body, headers: author });
const form = (path: string, body: string) =>
  server.raw("POST", `${root}${path}`, {
    rawBody: body,
    headers: { ...author, "Content-Type": "application/x-www-form-urlencoded" },
  });

function expectBlankWithIdSlug(response: RawResponse, nameField: string): void {
  expect([response.status, response.text.slice(0, 0)]).toEqual([201, ""]);
  expect(response.body[nameField]).toBe("");
  expect(response.body.slug).toBe(String(response.body.id));
}

describe("a venue, organizer or event name that filtering empties", () => {
  it("is stored blank, with the item's id as its slug (JSON and form bodies)", async () => {
    expectBlankWithIdSlug(await json("POST", "/venues", { venue: "<img src=x>" }), "venue");
    expectBlankWithIdSlug(await json("POST", "/organizers", { organizer: "<script>x</script>" }), "organizer");
    expectBlankWithIdSlug(await form("/venues", "venue=%3Cimg%20src%3Dx%3E"), "venue");
    expectBlankWithIdSlug(await form("/organizers", "organizer=%3Cscript%3Ex%3C%2Fscript%3E"), "organizer");
    expectBlankWithIdSlug(
      await json("POST", "/events", {
        title: "<img src=x>",
        start_date: "2026-12-01 10:00",
        end_date: "2026-12-01 11:00",
      }),
      "title",
    );
  });

  it("is stored blank when the venue and organizer come inline with an event", async () => {
    const inline = {
      title: "Inline",
      start_date: "2026-12-02 10:00",
      end_date: "2026-12-02 11:00",
      venue: { venue: "<img src=x>" },
      organizer: [{ organizer: "<script>x</script>" }],
    };
    const created = await json("POST", "/events", inline);
    expect(created.status).toBe(201);
    expect([created.body.venue.venue, created.body.venue.slug]).toEqual(["", String(created.body.venue.id)]);
    expect([created.body.organizer[0].organizer, created.body.organizer[0].slug]).toEqual([
      "",
      String(created.body.organizer[0].id),
    ]);
    const asForm = await form(
      "/events",
      "title=Form&start_date=2026-12-03%2010:00&end_date=2026-12-03%2011:00&venue[venue]=%3Cimg%20src%3Dx%3E",
    );
    expect([asForm.status, asForm.body.venue.venue, asForm.body.venue.slug]).toEqual([
      201,
      "",
      String(asForm.body.venue.id),
    ]);
  });

  it("takes the next free slug when another item's slug is that id already", async () => {
    const first = await json("POST", "/venues", { venue: "Taken", slug: "999999" });
    expect(first.status).toBe(201);
    const blank = await json("POST", "/venues", { venue: "<img src=x>" });
    expect(blank.status).toBe(201);
    expect(blank.body.slug).toBe(String(blank.body.id));
    // Found by it, like any slug.
    expect((await server.raw("GET", `${root}/venues/by-slug/${blank.body.slug}`, { headers: author })).body.id).toBe(
      blank.body.id,
    );
  });
});

describe("a category name that filtering empties", () => {
  // Authors may manage categories (not tags), on their own or by naming new ones in an event write.
  it("is refused with 400 empty_term_name, in JSON, form and inline forms, and nothing is made", async () => {
    const count = async () => (await server.raw("GET", `${root}/categories?per_page=50&hide_empty=0`)).body.total;
    const before = await count();
    const event = { title: "Terms", start_date: "2026-12-04 10:00", end_date: "2026-12-04 11:00" };
    for (const response of [
      await json("POST", "/categories", { name: "<img src=x>" }),
      await form("/categories", "name=%3Cscript%3Ealert(1)%3C%2Fscript%3E"),
      await json("POST", "/events", { ...event, categories: ["Jazz", "<img src=x>"] }),
      await form(
        "/events",
        "title=Terms&start_date=2026-12-04%2010:00&end_date=2026-12-04%2011:00&categories=%3Cimg%20src%3Dx%3E",
      ),
    ]) {
      expect([response.status, response.body.code]).toEqual([400, "empty_term_name"]);
    }
    expect(await count()).toBe(before);
    const kept = await json("POST", "/categories", { name: "<b>Jazz</b> <img src=x>" });
    expect([kept.status, kept.body.name]).toEqual([201, "<b>Jazz</b>"]);
  });
});
