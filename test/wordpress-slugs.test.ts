// Slugs as WordPress makes them (sanitize_title), so that a client holding the original's slug finds
// the same item here: the table below is what WordPress 7.0.4 answered for each text (its "save"
// context, which makes slugs, and its "query" context, which reads a slug asked for); then the
// same through the API: made from titles and names, looked up whatever their case or encoding, a
// slug that makes none is as if none were given, and slugs kept before they were percent-encoded
// are still found.
import { slugify } from "../src/text/slug";
import { Prisma } from "../generated/prisma/sqlite/client";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

describe("slugify, against WordPress's sanitize_title", () => {
  it.each([
    ["<b>Bold</b> 🎷 Jazz Café ß", "bold-%f0%9f%8e%b7-jazz-cafe-s", "bold-%f0%9f%8e%b7-jazz-caf%c3%a9-%c3%9f"],
    ["Música en Vivo", "musica-en-vivo", "m%c3%basica-en-vivo"],
    ["東京 Night", "%e6%9d%b1%e4%ba%ac-night", "%e6%9d%b1%e4%ba%ac-night"],
    ["Event 20 Music Night", "event-20-music-night", "event-20-music-night"],
    ["!!!", "", ""],
    ["Food &amp; Drink", "food-drink", "food-drink"],
    ["Food & Drink", "food-drink", "food-drink"],
    ["a.b/c d\te", "a-b-c-de", "a-bc-de"],
    ["caf%C3%A9 100%", "caf%c3%a9-100", "caf%c3%a9-100"],
    ["—em dash– en", "em-dash-en", "%e2%80%94em-dash%e2%80%93-en"],
    ["Ærø Œuvre Þorn", "aero-oeuvre-thorn", "%c3%a6r%c3%b8-%c5%93uvre-%c3%beorn"],
    ["İstanbul", "istanbul", "i%cc%87stanbul"],
    [
      "“quoted” ‘single’ «angle»",
      "quoted-single-angle",
      "%e2%80%9cquoted%e2%80%9d-%e2%80%98single%e2%80%99-%c2%abangle%c2%bb",
    ],
    ["x × y", "x-x-y", "x-%c3%97-y"],
    ["  spaced   out  ", "spaced-out", "spaced-out"],
    ["<script>alert(1)</script>Hi", "alert1hi", "alert1hi"],
    ["a <b c", "a", "a"],
    ["5 < 6 > 4", "5-6-4", "5-6-4"],
    ["<!-- c -->Kept", "kept", "kept"],
    ["Ça va? ¿Qué? ¡Sí!", "ca-va-que-si", "%c3%a7a-va-%c2%bfqu%c3%a9-%c2%a1s%c3%ad"],
    ["Zürich – Genève", "zurich-geneve", "z%c3%bcrich-%e2%80%93-gen%c3%a8ve"],
    ["ﬁne ligature", "%ef%ac%81ne-ligature", "%ef%ac%81ne-ligature"],
    [
      "Ελληνικά",
      "%ce%b5%ce%bb%ce%bb%ce%b7%ce%bd%ce%b9%ce%ba%ce%ac",
      "%ce%b5%ce%bb%ce%bb%ce%b7%ce%bd%ce%b9%ce%ba%ce%ac",
    ],
    [
      "Русский текст",
      "%d1%80%d1%83%d1%81%d1%81%d0%ba%d0%b8%d0%b9-%d1%82%d0%b5%d0%ba%d1%81%d1%82",
      "%d1%80%d1%83%d1%81%d1%81%d0%ba%d0%b8%d0%b9-%d1%82%d0%b5%d0%ba%d1%81%d1%82",
    ],
    ["עברית", "%d7%a2%d7%91%d7%a8%d7%99%d7%aa", "%d7%a2%d7%91%d7%a8%d7%99%d7%aa"],
    ["العربية", "%d8%a7%d9%84%d8%b9%d8%b1%d8%a8%d9%8a%d8%a9", "%d8%a7%d9%84%d8%b9%d8%b1%d8%a8%d9%8a%d8%a9"],
    ["😀😀😀", "%f0%9f%98%80%f0%9f%98%80%f0%9f%98%80", "%f0%9f%98%80%f0%9f%98%80%f0%9f%98%80"],
    ["Tiếng Việt", "tieng-viet", "ti%e1%ba%bfng-vi%e1%bb%87t"],
    ["a​b­c", "abc", "a%e2%80%8bb%c2%adc"],
    ["non breaking", "non-breaking", "non%c2%a0breaking"],
    ["<a title='>'>x</a>y", "xy", "xy"],
    [
      "🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷🎷",
      "%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7",
      "%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7%f0%9f%8e%b7",
    ],
    ["é".repeat(250), "e".repeat(200), "%c3%a9".repeat(33)],
  ])("%j: %j when made, %j when asked for", (text, made, asked) => {
    expect(slugify(text)).toBe(made);
    expect(slugify(text, true)).toBe(asked);
  });
});

describe("slugs through the API", () => {
  let server: TestServer;
  const base = "/calendar/events/v1";
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  const write = async (method: string, path: string, body: Record<string, unknown>) => {
    const response = await server.raw(method, `${base}${path}`, { body, headers: ADMIN_HEADERS });
    expect([path, response.status]).toEqual([path, method === "POST" ? 201 : 200]);
    return response.body as { id: number; slug: string };
  };
  const status = async (path: string) => (await server.raw("GET", `${base}${path}`)).status;
  const event = (title: string, extra: Record<string, unknown> = {}) =>
    write("POST", "/events", { title, start_date: "2027-03-01 20:00", end_date: "2027-03-01 22:00", ...extra });

  it("makes an event's slug as WordPress does, and finds it by that slug whatever its case or encoding", async () => {
    const jazz = await event("<b>Bold</b> 🎷 Jazz Café ß");
    expect(jazz.slug).toBe("bold-%f0%9f%8e%b7-jazz-cafe-s");
    for (const asked of [
      "bold-%f0%9f%8e%b7-jazz-cafe-s",
      "Bold-%F0%9F%8E%B7-Jazz-Cafe-S",
      encodeURIComponent("bold-🎷-jazz-cafe-s"),
      encodeURIComponent("Bold-🎷-Jazz-Café-ß"),
    ]) {
      const found = await server.raw("GET", `${base}/events/by-slug/${asked}`);
      expect([asked, found.status, found.body.id]).toEqual([asked, 200, jazz.id]);
    }
    expect(await status("/events/by-slug/bold-jazz")).toBe(404);
  });

  it("takes a slug that makes none as none given: the one made from the title or name", async () => {
    const probe = await event("Slug probe", { slug: "!!!" });
    expect(probe.slug).toBe("slug-probe");
    const edited = await write("PATCH", `/events/${probe.id}`, { slug: "<b></b>" });
    expect(edited.slug).toBe("slug-probe");
    const venue = await write("POST", "/venues", { venue: "Sala Ñandú", slug: "???" });
    expect(venue.slug).toBe("sala-nandu");
    const category = await write("POST", "/categories", { name: "Música en Vivo", slug: "¿?" });
    expect(category.slug).toBe("musica-en-vivo");
  });

  it("finds terms, venues and organizers by slug whatever its case, in filters, lists and event writes", async () => {
    const category = await write("POST", "/categories", { name: "東京 Night" });
    expect(category.slug).toBe("%e6%9d%b1%e4%ba%ac-night");
    const tag = await write("POST", "/tags", { name: "Late Show" });
    await write("POST", "/venues", { venue: "Blue Room" });
    await write("POST", "/organizers", { organizer: "Ana Ñandú" });
    const night = await event("Tokyo night", { categories: ["%E6%9D%B1%E4%BA%AC-Night"], tags: ["LATE-SHOW"] });
    const read = await server.raw("GET", `${base}/events/${night.id}`);
    expect(read.body.categories.map((term: { id: number }) => term.id)).toEqual([category.id]);
    expect(read.body.tags.map((term: { id: number }) => term.id)).toEqual([tag.id]);
    for (const query of [`categories=${encodeURIComponent("東京-NIGHT")}`, "tags=Late-Show"]) {
      const list = await server.raw("GET", `${base}/events?${query}`);
      expect([query, list.status, list.body.events.map((item: { id: number }) => item.id)]).toEqual([
        query,
        200,
        [night.id],
      ]);
    }
    const terms = await server.raw("GET", `${base}/tags?slug=LATE-show&hide_empty=false`);
    expect(terms.body.tags.map((term: { id: number }) => term.id)).toEqual([tag.id]);
    expect(await status("/venues/by-slug/Blue-Room")).toBe(200);
    expect(await status("/organizers/by-slug/ANA-NANDU")).toBe(200);
    expect((await server.raw("GET", `${base}/events?categories=no-such-night`)).status).toBe(400);
  });

  it("still finds a slug kept, as earlier versions kept them, with its letters not encoded", async () => {
    const kept = await event("Kept before");
    await server.db.write.$executeRaw(
      Prisma.sql`UPDATE "EventText" SET "slug" = ${"東京-kept"} WHERE "eventId" = ${kept.id}`,
    );
    for (const asked of [encodeURIComponent("東京-kept"), "%e6%9d%b1%e4%ba%ac-kept", "%E6%9D%B1%E4%BA%AC-KEPT"]) {
      const found = await server.raw("GET", `${base}/events/by-slug/${asked}`);
      expect([asked, found.status, found.body.id]).toEqual([asked, 200, kept.id]);
    }
  });
});
