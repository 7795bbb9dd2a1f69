// Content per language: an item written in one language and translated into others reads back
// in each (by id, by slug, in lists and searches), falling back field by field; and /doc comes
// in the asked language with the same shape.
import en from "../generated/openapi.json";
import es from "../generated/openapi.es.json";
import { createEventVia, fixedClock, utcWall } from "./support/events";
import { createLinkedVia, createTermVia } from "./support/fixtures";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({}, { clock: fixedClock });
});
afterAll(() => server.close());

const base = (language: string) => `/${language}/calendar/events/v1`;
const read = (language: string, path: string) => server.raw("GET", `${base(language)}${path}`);
const write = (language: string, method: string, path: string, body: unknown) =>
  server.raw(method, `${base(language)}${path}`, { body, headers: ADMIN_HEADERS });

describe("an event in three languages", () => {
  let id: number;
  beforeAll(async () => {
    const created = await createEventVia(server, {
      title: "Jazz concert",
      description: "An evening of smooth jazz.",
      excerpt: "Smooth jazz",
      start_date: utcWall(48),
      end_date: utcWall(50),
    });
    id = created.id;
    const spanish = await write("es", "PATCH", `/events/${id}`, {
      title: "Concierto de jazz",
      description: "Una velada de jazz suave.",
      slug: "concierto-de-jazz",
    });
    expect(spanish.status).toBe(200);
    expect(spanish.headers.get("content-language")).toBe("es");
    // Portuguese through the parameter rather than the prefix: the title only.
    const portuguese = await server.raw("PATCH", `/calendar/events/v1/events/${id}?i18n_language=pt-br`, {
      body: { title: "Show de jazz" },
      headers: ADMIN_HEADERS,
    });
    expect(portuguese.body.title).toBe("Show de jazz");
  });

  it("reads back by id in each language, falling back field by field to the default language", async () => {
    const english = await read("en", `/events/${id}`);
    expect(english.body).toMatchObject({
      title: "Jazz concert",
      description: "<p>An evening of smooth jazz.</p>",
      excerpt: "<p>Smooth jazz</p>",
      slug: "jazz-concert",
    });
    const spanish = await read("es", `/events/${id}`);
    expect(spanish.headers.get("content-language")).toBe("es");
    expect(spanish.body).toMatchObject({
      title: "Concierto de jazz",
      description: "<p>Una velada de jazz suave.</p>",
      excerpt: "<p>Smooth jazz</p>",
      slug: "concierto-de-jazz",
    });
    expect(spanish.body.url).toBe(`${server.origin}/es/event/concierto-de-jazz/`);
    // The Portuguese title came without a slug: the translation got one made from it.
    const portuguese = await read("pt-br", `/events/${id}`);
    expect(portuguese.body).toMatchObject({
      title: "Show de jazz",
      description: "<p>An evening of smooth jazz.</p>",
      slug: "show-de-jazz",
    });
  });

  it("lists its languages with their slugs and addresses", async () => {
    const { body } = await read("es", `/events/${id}`);
    expect(body.translations).toEqual({
      en: { slug: "jazz-concert", rest_url: `${server.origin}/en/calendar/events/v1/events/${id}` },
      "pt-br": { slug: "show-de-jazz", rest_url: `${server.origin}/pt-br/calendar/events/v1/events/${id}` },
      es: { slug: "concierto-de-jazz", rest_url: `${server.origin}/es/calendar/events/v1/events/${id}` },
    });
    expect((await read("es", "/events")).body.events[0]).not.toHaveProperty("translations");
  });

  it("finds translated slugs in the request language first, then the default one, then any", async () => {
    expect((await read("es", "/events/by-slug/concierto-de-jazz")).body).toMatchObject({
      id,
      title: "Concierto de jazz",
    });
    expect((await read("es", "/events/by-slug/jazz-concert")).body).toMatchObject({ id, title: "Concierto de jazz" });
    expect((await read("pt-br", "/events/by-slug/concierto-de-jazz")).body).toMatchObject({
      id,
      title: "Show de jazz",
    });
    expect((await read("en", "/events/by-slug/jazz-concert")).body.title).toBe("Jazz concert");
  });

  it("lists and searches in the request language, fallback text included", async () => {
    expect((await read("es", "/events")).body.events.map((e: { title: string }) => e.title)).toEqual([
      "Concierto de jazz",
    ]);
    expect((await read("es", "/events?search=velada")).body.total).toBe(1);
    // Spanish has its own description: the English one is not searched in Spanish...
    expect((await read("es", "/events?search=evening")).body.total).toBe(0);
    // ...but Portuguese has none, so it shows (and searches) the English one.
    expect((await read("pt-br", "/events?search=evening")).body.total).toBe(1);
    expect((await read("pt-br", "/events?search=show")).body.total).toBe(1);
    expect((await read("en", "/events?search=show")).body.total).toBe(0);
    expect((await read("en", "/events?orderby=title")).body.total).toBe(1);
  });

  it("leaves the other languages as they are when one changes", async () => {
    await write("es", "PATCH", `/events/${id}`, { excerpt: "Jazz suave" });
    expect((await read("en", `/events/${id}`)).body.excerpt).toBe("<p>Smooth jazz</p>");
    expect((await read("es", `/events/${id}`)).body.excerpt).toBe("<p>Jazz suave</p>");
  });
});

describe("an item created in another language than the default", () => {
  it("shows its own language's text everywhere until it is translated", async () => {
    const created = await write("es", "POST", "/events", {
      title: "Fiesta de verano",
      start_date: utcWall(30),
      end_date: utcWall(31),
    });
    expect(created.status).toBe(201);
    const english = await read("en", `/events/${created.body.id}`);
    expect(english.body).toMatchObject({ title: "Fiesta de verano", slug: "fiesta-de-verano" });
    expect(Object.keys(english.body.translations)).toEqual(["es"]);
  });

  it("lists every item as a read of it shows it, in every language, whatever language each part was written in", async () => {
    // Lists read only the texts a language can show (its own, the default's, the item's source
    // language's): a part written in Spanish alone must still show in Portuguese.
    const category = await write("es", "POST", "/categories", { name: "Danza" });
    const venue = await write("es", "POST", "/venues", { venue: "Sala pequeña", description: "Junto al río." });
    const organizer = await write("pt-br", "POST", "/organizers", {
      organizer: "Coletivo",
      description: "Grupo de dança.",
    });
    await write("en", "PATCH", `/organizers/${organizer.body.id}`, { organizer: "Collective" });
    const event = await write("pt-br", "POST", "/events", {
      title: "Noite de dança",
      description: "Uma noite inteira.",
      start_date: utcWall(200),
      end_date: utcWall(201),
      categories: [category.body.id],
      venue: venue.body.id,
      organizer: [organizer.body.id],
    });
    expect(event.status).toBe(201);
    const window = `start_date=${encodeURIComponent(utcWall(199))}&end_date=${encodeURIComponent(utcWall(202))}`;
    for (const language of ["en", "pt-br", "es"]) {
      const listed = (await read(language, `/events?${window}`)).body.events.find(
        (entry: { id: number }) => entry.id === event.body.id,
      );
      const {
        json_ld: _jsonLd,
        translations: _translations,
        venue: readVenue,
        organizer: readOrganizers,
        ...single
      } = (await read(language, `/events/${event.body.id}`)).body;
      const { json_ld: _venueJsonLd, ...venueShown } = readVenue;
      const organizersShown = readOrganizers.map(
        ({ json_ld: _organizerJsonLd, ...rest }: Record<string, unknown>) => rest,
      );
      expect(listed).toEqual({ ...single, venue: venueShown, organizer: organizersShown });
    }
    const spanishOnly = (await read("pt-br", `/events?${window}`)).body.events[0];
    expect(spanishOnly).toMatchObject({
      title: "Noite de dança",
      venue: { venue: "Sala pequeña" },
      organizer: [{ organizer: "Coletivo" }],
      categories: [{ name: "Danza" }],
    });
    // A single event, too, reads only the texts its linked items show; its own in every language.
    const single = (await read("pt-br", `/events/${event.body.id}`)).body;
    expect(single).toMatchObject({ venue: { venue: "Sala pequeña" }, organizer: [{ organizer: "Coletivo" }] });
    expect(Object.keys(single.translations)).toEqual(["pt-br"]);
    expect((await read("es", `/events?${window}`)).body.events[0]).toMatchObject({
      title: "Noite de dança",
      organizer: [{ organizer: "Collective" }],
    });
    expect((await read("en", `/events?${window}`)).body.events[0].organizer[0].description).toBe(
      "<p>Grupo de dança.</p>",
    );
  });
});

describe("venues, organizers, categories and tags in several languages", () => {
  it("keeps a venue's and an organizer's name and description per language, their other fields shared", async () => {
    for (const [collection, field] of [
      ["venues", "venue"],
      ["organizers", "organizer"],
    ] as const) {
      const created = await createLinkedVia(server, collection, {
        [field]: "City Hall",
        description: "The old town hall.",
        phone: "555",
      });
      const patched = await write("pt-br", "PATCH", `/${collection}/${created.id}`, {
        [field]: "Prefeitura",
        phone: "556",
      });
      expect(patched.body).toMatchObject({
        [field]: "Prefeitura",
        description: "<p>The old town hall.</p>",
        phone: "556",
      });
      expect((await read("en", `/${collection}/${created.id}`)).body).toMatchObject({
        [field]: "City Hall",
        phone: "556",
      });
      expect((await read("pt-br", `/${collection}?search=prefeitura`)).body.total).toBe(1);
      expect((await read("en", `/${collection}?search=prefeitura`)).body.total).toBe(0);
      expect((await read("pt-br", `/${collection}/${created.id}`)).body.translations).toEqual({
        en: { slug: "city-hall", rest_url: `${server.origin}/en/calendar/events/v1/${collection}/${created.id}` },
        "pt-br": {
          slug: "prefeitura",
          rest_url: `${server.origin}/pt-br/calendar/events/v1/${collection}/${created.id}`,
        },
      });
    }
  });

  it("keeps a term's name, description and slug per language", async () => {
    for (const collection of ["categories", "tags"] as const) {
      const created = await createTermVia(server, collection, {
        name: `Music ${collection}`,
        description: "All kinds",
      });
      const spanish = await write("es", "PATCH", `/${collection}/${created.id}`, {
        name: `Música ${collection}`,
        slug: `musica-${collection}`,
      });
      expect(spanish.body).toMatchObject({
        name: `Música ${collection}`,
        slug: `musica-${collection}`,
        description: "All kinds",
      });
      expect((await read("en", `/${collection}/${created.id}`)).body).toMatchObject({
        name: `Music ${collection}`,
        slug: `music-${collection}`,
      });
      expect((await read("es", `/${collection}?hide_empty=false&search=musica`)).body.total).toBe(1);
      expect((await read("es", `/${collection}?hide_empty=false&slug=musica-${collection}`)).body.total).toBe(1);
      expect((await read("es", `/${collection}?hide_empty=false&slug=music-${collection}`)).body.total).toBe(1);
      expect((await read("pt-br", `/${collection}/${created.id}`)).body.name).toBe(`Music ${collection}`);
    }
  });

  it("finds a term named by slug in a filter as by-slug routes find items: the request language's, then the default's, then any", async () => {
    const spanishOne = await createTermVia(server, "categories", { name: "Chorus" });
    const portugueseOne = await createTermVia(server, "categories", { name: "Choir" });
    await write("es", "PATCH", `/categories/${spanishOne.id}`, { name: "Coro", slug: "coro-shared" });
    await write("pt-br", "PATCH", `/categories/${portugueseOne.id}`, { name: "Coro", slug: "coro-shared" });
    const englishSlug = (await read("en", `/categories/${portugueseOne.id}`)).body.slug;
    const event = await createEventVia(server, {
      title: "Voices",
      start_date: utcWall(60),
      end_date: utcWall(61),
      categories: [spanishOne.id],
    });
    const listed = async (language: string, slug: string) =>
      (await read(language, `/events?categories=${slug}`)).body.events.map((item: { id: number }) => item.id);
    expect(await listed("es", "coro-shared")).toEqual([event.id]);
    expect(await listed("pt-br", "coro-shared")).toEqual([]);
    // English has neither: the default language's (en) slug of the other one is not it either, so any: the first language by name (es).
    expect(await listed("en", "coro-shared")).toEqual([event.id]);
    expect(await listed("es", englishSlug)).toEqual([]);
  });

  it("embeds terms, venues and organizers in the event's language", async () => {
    const category = await createTermVia(server, "categories", { name: "Theatre" });
    await write("es", "PATCH", `/categories/${category.id}`, { name: "Teatro" });
    const venue = await createLinkedVia(server, "venues", { venue: "Main Stage" });
    await write("es", "PATCH", `/venues/${venue.id}`, { venue: "Escenario principal" });
    const event = await createEventVia(server, {
      title: "Play",
      start_date: utcWall(60),
      end_date: utcWall(62),
      categories: [category.id],
      venue: [venue.id],
    });
    const spanish = await read("es", `/events/${event.id}`);
    expect(spanish.body.categories[0].name).toBe("Teatro");
    expect(spanish.body.venue.venue).toBe("Escenario principal");
    expect(spanish.body.categories[0].urls.self).toBe(
      `${server.origin}/es/calendar/events/v1/categories/${category.id}`,
    );
  });
});

describe("/doc per language", () => {
  it("serves the document with descriptions in the asked language and the same shape", async () => {
    const spanish = await read("es", "/doc");
    expect(spanish.headers.get("content-language")).toBe("es");
    expect(spanish.body.info.title).toBe(es.info.title);
    expect(spanish.body.info.title).not.toBe(en.info.title);
    expect(spanish.body.paths["/events"].get.summary).toBe(es.paths["/events"].get.summary);
    expect(Object.keys(spanish.body.paths)).toEqual(Object.keys(en.paths));
    expect(Object.keys(spanish.body.components.schemas)).toEqual(Object.keys(en.components.schemas));
    const portuguese = await server.raw("GET", "/calendar/events/v1/doc?i18n_language=pt-br");
    expect(portuguese.body.servers[0].url).toBe(`${server.origin}/pt-br/calendar/events/v1`);
    expect(portuguese.body.info.title).not.toBe(en.info.title);
  });

  it("renders the HTML page in the asked language", async () => {
    const page = await server.raw("GET", "/pt-br/calendar/events/v1/doc", { headers: { Accept: "text/html" } });
    expect(page.text).toContain('<html lang="pt-br">');
    expect(page.text).toContain(`<title>${(await read("pt-br", "/doc")).body.info.title}</title>`);
  });

  it("gives the namespace index in the asked language too, with the same routes and arguments", async () => {
    const spanish = (await read("es", "")).body;
    const english = (await read("en", "")).body;
    expect(Object.keys(spanish.routes)).toEqual(Object.keys(english.routes));
    const args = (index: any) => index.routes["/calendar/events/v1/events"].endpoints[0].args;
    expect(Object.keys(args(spanish))).toEqual(Object.keys(args(english)));
    expect(args(spanish).start_date.description).toBe(es.components.parameters.StartDate.description);
    expect(args(spanish).start_date.description).not.toBe(args(english).start_date.description);
  });
});
