// A venue from an iCalendar LOCATION (issue 47): Apple's "name, line break, address", its address
// read into fields as Apple Maps writes addresses in a few countries; a LOCATION of one line is a name.
import { venueOfLocation } from "../src/resources/imports/location-venue";

describe("a venue from a LOCATION", () => {
  it.each([
    [
      "Coliseu dos Recreios\nRua das Portas de Santo Antão 96, 1150-268 Lisboa, Portugal",
      {
        venue: "Coliseu dos Recreios",
        address: "Rua das Portas de Santo Antão 96",
        zip: "1150-268",
        city: "Lisboa",
        country: "Portugal",
      },
    ],
    [
      "Apple Park\n1 Apple Park Way\nCupertino, CA 95014\nUnited States",
      {
        venue: "Apple Park",
        address: "1 Apple Park Way",
        city: "Cupertino",
        stateprovince: "CA",
        zip: "95014",
        country: "United States",
      },
    ],
    [
      "Prime Minister's Office\n10 Downing St, London SW1A 2AA, United Kingdom",
      {
        venue: "Prime Minister's Office",
        address: "10 Downing St",
        city: "London",
        zip: "SW1A 2AA",
        country: "United Kingdom",
      },
    ],
    [
      "Philharmonie\nHerbert-von-Karajan-Str. 1, 10785 Berlin",
      { venue: "Philharmonie", address: "Herbert-von-Karajan-Str. 1", zip: "10785", city: "Berlin" },
    ],
    ["Sala 2\nPiso 1", { venue: "Sala 2", address: "Piso 1" }],
  ])("%j", (location, venue) => {
    expect(venueOfLocation(location)).toEqual(venue);
  });

  it("keeps a LOCATION on one line as the venue's name, commas and all, and gives none for a blank one", () => {
    expect(venueOfLocation("Clube de Fado, Rua S. João da Praça 94, Lisboa")).toEqual({
      venue: "Clube de Fado, Rua S. João da Praça 94, Lisboa",
    });
    expect(venueOfLocation(" \n ")).toBeNull();
    expect(venueOfLocation(`${"n".repeat(300)}\n${"a".repeat(300)}`)).toEqual({
      venue: "n".repeat(200),
      address: "a".repeat(200),
    });
  });
});
