import { operatorRoute } from "@/lib/dashboard/http";
import { systemReport } from "@/lib/dashboard/system";

export const dynamic = "force-dynamic";

/** Queues, processes, database size and retention (operators only; docs/operations.md "System page"). */
export const GET = operatorRoute(() => systemReport());
