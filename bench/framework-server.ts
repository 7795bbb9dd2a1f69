// The benchmark's framework anchor: Express alone, answering every request with a JSON body made
// before the run (the service's own answer to the scenario, so of the same size), without a
// database, validation or serializer. What the service reaches of its rate is what the rest of
// its stack leaves of what the framework allows on this machine.
//   node --import tsx bench/framework-server.ts   (PORT); PUT /__body sets the body to answer.
import { startAnchor } from "./anchor";

startAnchor();
