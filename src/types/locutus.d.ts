// locutus 2 (the last major that runs on Node 20) ships no types: its port of PHP's strtotime,
// the one function we use. Seconds since the epoch, or false for what it cannot read.
declare module "locutus/php/datetime/strtotime" {
  function strtotime(text: string, now?: number): number | false;
  export = strtotime;
}
