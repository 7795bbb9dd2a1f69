import { startTestServer, type TestServer } from "./support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

it("answers", async () => {
  const { data, response } = await server.api.GET("/categories");
  expect(response.status).toBe(200);
  expect(data?.categories).toEqual([]);
});
