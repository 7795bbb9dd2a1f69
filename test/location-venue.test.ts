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
    [
      // Apple's Brazilian form: the city and its state's code joined by a dash, then the postcode alone.
      "Allianz Parque\nAvenida Francisco Matarazzo, 1705 - Água Branca, São Paulo - SP, 05001-200, Brasil",
      {
        venue: "Allianz Parque",
        address: "Avenida Francisco Matarazzo, 1705 - Água Branca",
        city: "São Paulo",
        stateprovince: "SP",
        zip: "05001-200",
        country: "Brasil",
      },
    ],
  ])("%j", (location, venue) => {
    expect(venueOfLocation(location)).toEqual(venue);
  });

  it.each([
    [
      "Clube de Fado, Rua S. João da Praça 94, Lisboa",
      { venue: "Clube de Fado", address: "Rua S. João da Praça 94", city: "Lisboa" },
    ],
    [
      "Coliseu dos Recreios, R. das Portas de Santo Antão 96, 1150-268 Lisboa, Portugal",
      {
        venue: "Coliseu dos Recreios",
        address: "R. das Portas de Santo Antão 96",
        zip: "1150-268",
        city: "Lisboa",
        country: "Portugal",
      },
    ],
    [
      "Blue Note, 131 W 3rd St, New York, NY 10012, United States",
      {
        venue: "Blue Note",
        address: "131 W 3rd St",
        city: "New York",
        stateprovince: "NY",
        zip: "10012",
        country: "United States",
      },
    ],
    [
      // As this service's own feeds write a venue: street, city, state, postcode, country.
      "Coliseu, Rua das Portas de Santo Antão 96, Lisboa, 1150-268, Portugal",
      {
        venue: "Coliseu",
        address: "Rua das Portas de Santo Antão 96",
        city: "Lisboa",
        zip: "1150-268",
        country: "Portugal",
      },
    ],
    [
      "Blue Note, 131 W 3rd St, New York, NY, 10012, USA",
      {
        venue: "Blue Note",
        address: "131 W 3rd St",
        city: "New York",
        stateprovince: "NY",
        zip: "10012",
        country: "USA",
      },
    ],
  ])("reads Google's name and address on one line: %j", (location, venue) => {
    expect(venueOfLocation(location)).toEqual(venue);
  });

  it.each([
    "Startup Lisboa (Rua da Prata 121, Lisboa, Portugal)",
    "Café, Bar & Grill, Main Street",
    "Rua da Prata 121, 1100-415 Lisboa, Portugal",
    "Studio 54, 254 W 54th St, New York",
    "Aula Magna, Lisboa",
  ])("keeps any other line as the venue's name, commas and all: %j", (location) => {
    expect(venueOfLocation(location)).toEqual({ venue: location });
  });

  it("gives no venue for a blank LOCATION, and cuts names and fields to 200 characters", () => {
    expect(venueOfLocation(" \n ")).toBeNull();
    expect(venueOfLocation(`${"n".repeat(300)}\n${"a".repeat(300)}`)).toEqual({
      venue: "n".repeat(200),
      address: "a".repeat(200),
    });
  });
});
