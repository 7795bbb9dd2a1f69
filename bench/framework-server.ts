// The benchmark's framework anchor: Express alone, answering every request with a JSON body made
// before the run (the service's own answer to the scenario, so of the same size), without a
// database, validation or serializer. What the service reaches of its rate is what the rest of
// its stack leaves of what the framework allows on this machine.
//   node --import tsx bench/framework-server.ts   (PORT); PUT /__body sets the body to answer.
import express from "express";

const app = express();
app.disable("x-powered-by");
app.set("etag", false);

let body = "{}";
let status = 200;

app.put("/__body", express.text({ type: "*/*", limit: "64mb" }), (req, res) => {
  body = req.body as string;
  status = Number(req.query.status ?? 200);
  res.status(204).end();
});

app.use((_req, res) => {
  res.status(status).type("json").send(body);
});

app.listen(Number(process.env.PORT ?? 8090), process.env.HOST ?? "127.0.0.1");
