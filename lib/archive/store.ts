/**
 * Where day archives are kept (docs/operations.md "Archive"): a directory (ARCHIVE_DIR) or an S3-compatible
 * bucket (ARCHIVE_S3_*). Product-free: objects are named by key (`2026-11-20/requests.ndjson.gz`), written
 * from a local file (so an upload never holds an object in memory) and read back as streams.
 */
import { createReadStream } from "node:fs";
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import type { Config } from "@/lib/config";

/** An archive location. Every method throws on I/O errors (a missing object is `null` where noted). */
export type ArchiveStore = {
  /** Human-readable location, for logs and the CLI. */
  describe: string;
  /** Stores the local file `file` as `key` (replacing it): atomically for a directory (written aside, then renamed). */
  putFile: (key: string, file: string) => Promise<void>;
  /** Stores `text` as `key`. */
  putText: (key: string, text: string) => Promise<void>;
  /** The text of `key`, or null when there is no such object. */
  getText: (key: string) => Promise<string | null>;
  /** A stream of `key`'s bytes, or null when there is no such object. */
  open: (key: string) => Promise<Readable | null>;
  /** The size of `key` in bytes, or null when there is no such object. */
  size: (key: string) => Promise<number | null>;
  /** The first path segments of the stored keys (the archived days), sorted. */
  listPrefixes: () => Promise<string[]>;
};

const missing = (err: unknown) => (err as { code?: string }).code === "ENOENT";
/** `fallback` when `err` is a missing file; `err` rethrown otherwise. */
function orMissing<T>(err: unknown, fallback: T): T {
  if (missing(err)) return fallback;
  throw err;
}

/** A store under directory `dir` (created on first write). */
export function directoryStore(dir: string): ArchiveStore {
  const at = (key: string) => path.join(dir, ...key.split("/"));
  const put = async (key: string, write: (tmp: string) => Promise<void>) => {
    const target = at(key);
    await mkdir(path.dirname(target), { recursive: true });
    const tmp = `${target}.tmp-${process.pid}`;
    try {
      await write(tmp);
      await rename(tmp, target);
    } finally {
      await rm(tmp, { force: true });
    }
  };
  return {
    describe: dir,
    putFile: (key, file) => put(key, (tmp) => copyFile(file, tmp)),
    putText: (key, text) => put(key, (tmp) => writeFile(tmp, text)),
    getText: (key) => readFile(at(key), "utf8").catch((err: unknown) => orMissing(err, null)),
    open: async (key) => {
      try {
        await stat(at(key));
      } catch (err) {
        if (missing(err)) return null;
        throw err;
      }
      return createReadStream(at(key));
    },
    size: (key) =>
      stat(at(key)).then(
        (s) => s.size,
        (err: unknown) => orMissing(err, null),
      ),
    listPrefixes: async () => {
      const entries = await readdir(dir, { withFileTypes: true }).catch((err: unknown) => orMissing(err, []));
      return entries
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort();
    },
  };
}

type S3Settings = Extract<NonNullable<Config["archive"]>, { kind: "s3" }>;

/** A store in an S3-compatible bucket (AWS, MinIO, fauxqs…), keys under `prefix/`. */
export function s3Store(s: S3Settings): ArchiveStore {
  const client = new S3Client({
    region: s.region,
    endpoint: s.endpoint,
    forcePathStyle: s.forcePathStyle,
    ...(s.accessKeyId && s.secretAccessKey ? { credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey } } : {}),
  });
  const full = (key: string) => (s.prefix ? `${s.prefix}/${key}` : key);
  const notFound = (err: unknown) => {
    const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
    return e.name === "NoSuchKey" || e.name === "NotFound" || e.$metadata?.httpStatusCode === 404;
  };
  const open = async (key: string): Promise<Readable | null> => {
    try {
      const out = await client.send(new GetObjectCommand({ Bucket: s.bucket, Key: full(key) }));
      return out.Body as Readable;
    } catch (err) {
      if (notFound(err)) return null;
      throw err;
    }
  };
  return {
    describe: `s3://${s.bucket}/${s.prefix}`,
    putFile: async (key, file) => {
      const { size } = await stat(file);
      await client.send(new PutObjectCommand({ Bucket: s.bucket, Key: full(key), Body: createReadStream(file), ContentLength: size }));
    },
    putText: async (key, text) => {
      await client.send(new PutObjectCommand({ Bucket: s.bucket, Key: full(key), Body: text, ContentType: "application/json" }));
    },
    getText: async (key) => {
      const body = await open(key);
      if (!body) return null;
      const chunks: Buffer[] = [];
      for await (const c of body) chunks.push(Buffer.from(c as Uint8Array));
      return Buffer.concat(chunks).toString("utf8");
    },
    open,
    size: async (key) => {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: s.bucket, Key: full(key) }));
        return head.ContentLength ?? null;
      } catch (err) {
        if (notFound(err)) return null;
        throw err;
      }
    },
    listPrefixes: async () => {
      const out: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: s.bucket, Prefix: s.prefix ? `${s.prefix}/` : undefined, Delimiter: "/", ContinuationToken: token }),
        );
        for (const p of page.CommonPrefixes ?? []) if (p.Prefix) out.push(p.Prefix.slice(s.prefix ? s.prefix.length + 1 : 0).replace(/\/$/, ""));
        token = page.NextContinuationToken;
      } while (token);
      return out.sort();
    },
  };
}

/** The store of the settings `archive` (getConfig().archive), or null when archiving is off. */
export function archiveStoreOf(archive: Config["archive"]): ArchiveStore | null {
  if (!archive) return null;
  return archive.kind === "dir" ? directoryStore(archive.dir) : s3Store(archive);
}
