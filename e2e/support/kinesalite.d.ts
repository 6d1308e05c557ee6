/** The part of kinesalite (npm, no types of its own) the Kinesis tests use: an in-memory Kinesis server. */
declare module "kinesalite" {
  import type { Server } from "node:http";
  /** A Kinesis API server (memdown store when no `path`); the `*StreamMs` delays of stream changes, ms. */
  export default function kinesalite(options?: { createStreamMs?: number; deleteStreamMs?: number; updateStreamMs?: number; shardLimit?: number }): Server;
}
