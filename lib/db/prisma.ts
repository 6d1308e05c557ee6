import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { getPool } from "@/lib/db/pool";

const globalForPrisma = globalThis as unknown as { __hookyardPrisma?: PrismaClient };

/** The process-wide Prisma client, over the shared pg pool. */
export function getPrisma(): PrismaClient {
  globalForPrisma.__hookyardPrisma ??= new PrismaClient({ adapter: new PrismaPg(getPool()) });
  return globalForPrisma.__hookyardPrisma;
}

export { Prisma } from "@/lib/generated/prisma/client";
